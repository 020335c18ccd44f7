package io.hami.framework.plugins.helper;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGroup;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a pod names its pod group: Kubernetes v1.36's {@code spec.schedulingGroup.podGroupName}, or,
 * where the cluster lacks the {@code scheduling.k8s.io/v1alpha2} API, this scheduler's annotations.
 */
public final class PodGroups {
  /** The annotation naming the pod's group, in the pod's namespace. */
  public static final String NAME_ANNOTATION = "pod-group.scheduling.hami.io/name";

  /** The annotation giving the group's quorum: a positive integer. */
  public static final String MIN_AVAILABLE_ANNOTATION =
      "pod-group.scheduling.hami.io/min-available";

  private PodGroups() {}

  /**
   * The key {@code namespace/name} of the group the pod names, or null when it names none. Reads
   * the spec first, then the annotation; does not validate (a pod that names its group badly is
   * refused by GangScheduling, and is only sorted here).
   */
  public static @Nullable String key(Pod pod) {
    String name = name(pod);
    if (name == null || name.isEmpty()) {
      return null;
    }
    String ns = pod.getMetadata() == null ? null : pod.getMetadata().getNamespace();
    return (ns == null ? "default" : ns) + "/" + name;
  }

  private static @Nullable String name(Pod pod) {
    PodSchedulingGroup g = pod.getSpec() == null ? null : pod.getSpec().getSchedulingGroup();
    if (g != null) {
      return g.getPodGroupName();
    }
    Map<String, String> a = pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
    return a == null ? null : a.get(NAME_ANNOTATION);
  }
}
