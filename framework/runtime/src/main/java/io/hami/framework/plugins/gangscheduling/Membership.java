package io.hami.framework.plugins.gangscheduling;

import static io.hami.framework.plugins.helper.PodGroups.MIN_AVAILABLE_ANNOTATION;
import static io.hami.framework.plugins.helper.PodGroups.NAME_ANNOTATION;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGroup;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What a pod says about its pod group: none, a group, or something malformed. */
sealed interface Membership {

  /** The pod names no group. */
  enum None implements Membership {
    INSTANCE
  }

  /**
   * The pod names group {@code name} in {@code namespace}.
   *
   * @param viaApi whether through {@code spec.schedulingGroup} (a PodGroup object holds the policy)
   *     rather than the annotations
   * @param minAvailable the annotation's quorum; 0 for {@code viaApi}
   */
  record Member(String namespace, String name, boolean viaApi, int minAvailable)
      implements Membership {
    String key() {
      return namespace + "/" + name;
    }
  }

  /** The pod names its group badly; {@code message} says which field and value. */
  record Invalid(String message) implements Membership {}

  /** Reads the pod's spec and annotations. */
  static Membership of(Pod pod) {
    String ns =
        pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
    Map<String, String> a = pod.getMetadata().getAnnotations();
    String annName = a == null ? null : a.get(NAME_ANNOTATION);
    String annMin = a == null ? null : a.get(MIN_AVAILABLE_ANNOTATION);
    PodSchedulingGroup sg = pod.getSpec() == null ? null : pod.getSpec().getSchedulingGroup();
    if (sg != null) {
      if (annName != null || annMin != null) {
        return new Invalid(
            "the pod sets both spec.schedulingGroup and the annotation "
                + (annName != null ? NAME_ANNOTATION : MIN_AVAILABLE_ANNOTATION)
                + ": name its pod group one way only");
      }
      if (!sg.getAdditionalProperties().isEmpty()) {
        String field = sg.getAdditionalProperties().keySet().iterator().next();
        return new Invalid("spec.schedulingGroup." + field + " is not supported by this scheduler");
      }
      String name = sg.getPodGroupName();
      if (name == null || name.isBlank()) {
        return new Invalid("spec.schedulingGroup.podGroupName must name a PodGroup");
      }
      return new Member(ns, name, true, 0);
    }
    if (annName == null && annMin == null) {
      return None.INSTANCE;
    }
    if (annName == null) {
      return new Invalid(
          "annotation "
              + MIN_AVAILABLE_ANNOTATION
              + "="
              + quoted(annMin)
              + " needs annotation "
              + NAME_ANNOTATION);
    }
    if (annName.isBlank()) {
      return new Invalid(
          "annotation " + NAME_ANNOTATION + "=" + quoted(annName) + " must name a pod group");
    }
    if (annMin == null) {
      return new Invalid(
          "annotation "
              + NAME_ANNOTATION
              + "="
              + quoted(annName)
              + " needs annotation "
              + MIN_AVAILABLE_ANNOTATION
              + " (a positive integer)");
    }
    int min;
    try {
      min = Integer.parseInt(annMin.trim());
    } catch (NumberFormatException e) {
      min = 0;
    }
    if (min <= 0) {
      return new Invalid(
          "annotation "
              + MIN_AVAILABLE_ANNOTATION
              + "="
              + quoted(annMin)
              + " is not a positive integer");
    }
    return new Member(ns, annName, false, min);
  }

  private static String quoted(@Nullable String s) {
    return "\"" + s + "\"";
  }
}
