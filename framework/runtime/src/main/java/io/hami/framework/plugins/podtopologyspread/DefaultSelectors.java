package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.plugins.helper.Selector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The selector of a pod's default spread constraints, as kube-scheduler deduces it: the selectors
 * of the Services in the pod's namespace that select it, merged, ANDed with the selector of the
 * ReplicationController, ReplicaSet or StatefulSet that controls it. Objects that are missing or
 * malformed add nothing. Thread-safe.
 */
final class DefaultSelectors {
  private final ObjectLister<Service> services;
  private final ObjectLister<ReplicationController> replicationControllers;
  private final ObjectLister<ReplicaSet> replicaSets;
  private final ObjectLister<StatefulSet> statefulSets;

  /** Asks {@code handle} for the four listers; call from the plugin's factory. */
  DefaultSelectors(FrameworkHandle handle) {
    this.services = handle.lister(ObjectKind.SERVICE);
    this.replicationControllers = handle.lister(ObjectKind.REPLICATION_CONTROLLER);
    this.replicaSets = handle.lister(ObjectKind.REPLICA_SET);
    this.statefulSets = handle.lister(ObjectKind.STATEFUL_SET);
  }

  /** The pod's default selector; {@link Selector#isEmpty() empty} when nothing selects it. */
  Selector of(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    Map<String, String> podLabels = pod.getMetadata().getLabels();
    Map<String, String> set = new LinkedHashMap<>();
    for (Service s : ns == null ? List.<Service>of() : services.list(ns)) {
      Map<String, String> sel = s.getSpec() == null ? null : s.getSpec().getSelector();
      // A Service without a selector selects nothing, not everything.
      if (sel != null && Selector.ofLabels(sel).matches(podLabels)) {
        set.putAll(sel);
      }
    }
    Selector selector = Selector.ofLabels(set);
    OwnerReference owner = controller(pod);
    if (owner == null || owner.getName() == null) {
      return selector;
    }
    String kind = owner.getKind();
    String apiVersion = owner.getApiVersion();
    if ("v1".equals(apiVersion) && "ReplicationController".equals(kind)) {
      ReplicationController rc = replicationControllers.get(ns, owner.getName());
      if (rc != null && rc.getSpec() != null && rc.getSpec().getSelector() != null) {
        set.putAll(rc.getSpec().getSelector());
        selector = Selector.ofLabels(set);
      }
    } else if ("apps/v1".equals(apiVersion) && "ReplicaSet".equals(kind)) {
      ReplicaSet rs = replicaSets.get(ns, owner.getName());
      if (rs != null && rs.getSpec() != null) {
        selector = and(selector, rs.getSpec().getSelector());
      }
    } else if ("apps/v1".equals(apiVersion) && "StatefulSet".equals(kind)) {
      StatefulSet ss = statefulSets.get(ns, owner.getName());
      if (ss != null && ss.getSpec() != null) {
        selector = and(selector, ss.getSpec().getSelector());
      }
    }
    return selector;
  }

  private static Selector and(Selector base, @Nullable LabelSelector other) {
    try {
      Selector s = Selector.of(other, "spec.selector");
      return s.equals(Selector.NOTHING) ? base : base.and(s);
    } catch (IllegalArgumentException e) {
      return base;
    }
  }

  private static @Nullable OwnerReference controller(Pod pod) {
    List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
    if (refs == null) {
      return null;
    }
    for (OwnerReference r : refs) {
      if (r != null && Boolean.TRUE.equals(r.getController())) {
        return r;
      }
    }
    return null;
  }
}
