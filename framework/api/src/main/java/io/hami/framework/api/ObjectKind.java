package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import org.jspecify.annotations.Nullable;

/**
 * A kind of cluster object, other than nodes and pods, that plugins may read through {@link
 * FrameworkHandle#lister}. The set is closed: the scheduler knows how to list and watch each one
 * and which {@link EventResource} its changes are reported as.
 *
 * @param <T> the object's type
 */
public final class ObjectKind<T extends HasMetadata> {
  public static final ObjectKind<PersistentVolumeClaim> PERSISTENT_VOLUME_CLAIM =
      new ObjectKind<>(PersistentVolumeClaim.class, true, EventResource.PERSISTENT_VOLUME_CLAIM);
  public static final ObjectKind<PersistentVolume> PERSISTENT_VOLUME =
      new ObjectKind<>(PersistentVolume.class, false, EventResource.PERSISTENT_VOLUME);
  public static final ObjectKind<StorageClass> STORAGE_CLASS =
      new ObjectKind<>(StorageClass.class, false, EventResource.STORAGE_CLASS);
  public static final ObjectKind<CSINode> CSI_NODE =
      new ObjectKind<>(CSINode.class, false, EventResource.CSI_NODE);
  public static final ObjectKind<CSIDriver> CSI_DRIVER =
      new ObjectKind<>(CSIDriver.class, false, EventResource.CSI_DRIVER);
  public static final ObjectKind<Namespace> NAMESPACE =
      new ObjectKind<>(Namespace.class, false, EventResource.NAMESPACE);
  public static final ObjectKind<Service> SERVICE =
      new ObjectKind<>(Service.class, true, EventResource.SERVICE);
  public static final ObjectKind<ReplicaSet> REPLICA_SET =
      new ObjectKind<>(ReplicaSet.class, true, EventResource.REPLICA_SET);
  public static final ObjectKind<StatefulSet> STATEFUL_SET =
      new ObjectKind<>(StatefulSet.class, true, EventResource.STATEFUL_SET);
  public static final ObjectKind<ReplicationController> REPLICATION_CONTROLLER =
      new ObjectKind<>(ReplicationController.class, true, EventResource.REPLICATION_CONTROLLER);

  /** policy/v1 PodDisruptionBudgets, which preemption tries not to violate. */
  public static final ObjectKind<PodDisruptionBudget> POD_DISRUPTION_BUDGET =
      new ObjectKind<>(PodDisruptionBudget.class, true, EventResource.POD_DISRUPTION_BUDGET);

  /**
   * {@code scheduling.k8s.io/v1alpha2} PodGroups, an alpha API that a cluster may not serve: the
   * scheduler watches them only where the API exists, and the lister stays empty elsewhere.
   */
  public static final ObjectKind<PodGroup> POD_GROUP =
      new ObjectKind<>(PodGroup.class, true, EventResource.POD_GROUP, true);

  /** Every kind, in a fixed order. */
  public static final ImmutableList<ObjectKind<?>> ALL =
      ImmutableList.of(
          PERSISTENT_VOLUME_CLAIM,
          PERSISTENT_VOLUME,
          STORAGE_CLASS,
          CSI_NODE,
          CSI_DRIVER,
          NAMESPACE,
          SERVICE,
          REPLICA_SET,
          STATEFUL_SET,
          REPLICATION_CONTROLLER,
          POD_DISRUPTION_BUDGET,
          POD_GROUP);

  private final Class<T> type;
  private final boolean namespaced;
  private final EventResource resource;
  private final boolean mayBeUnserved;

  private ObjectKind(Class<T> type, boolean namespaced, EventResource resource) {
    this(type, namespaced, resource, false);
  }

  private ObjectKind(
      Class<T> type, boolean namespaced, EventResource resource, boolean mayBeUnserved) {
    this.type = requireNonNull(type);
    this.namespaced = namespaced;
    this.resource = requireNonNull(resource);
    this.mayBeUnserved = mayBeUnserved;
  }

  /**
   * Returns the kind of {@code obj}.
   *
   * @throws IllegalArgumentException if it is none of {@link #ALL}
   */
  public static ObjectKind<?> of(HasMetadata obj) {
    for (ObjectKind<?> k : ALL) {
      if (k.type.isInstance(obj)) {
        return k;
      }
    }
    throw new IllegalArgumentException("not a listable object kind: " + obj.getClass().getName());
  }

  public Class<T> type() {
    return type;
  }

  /** Whether objects of this kind live in a namespace. */
  public boolean namespaced() {
    return namespaced;
  }

  /**
   * Whether a cluster may not serve this kind's API (an alpha API): the scheduler then skips its
   * informer instead of failing to start, and plugins see no objects of the kind.
   */
  public boolean mayBeUnserved() {
    return mayBeUnserved;
  }

  /** The resource that changes of this kind are reported as in {@link ClusterEvent}s. */
  public EventResource resource() {
    return resource;
  }

  /** The store key of {@code obj}: {@code namespace/name} for namespaced kinds, else the name. */
  public String key(HasMetadata obj) {
    return key(obj.getMetadata().getNamespace(), obj.getMetadata().getName());
  }

  /** The store key of the object called {@code name} in {@code namespace}. */
  public String key(@Nullable String namespace, String name) {
    return namespaced ? namespace + "/" + name : name;
  }

  @Override
  public String toString() {
    return type.getSimpleName();
  }
}
