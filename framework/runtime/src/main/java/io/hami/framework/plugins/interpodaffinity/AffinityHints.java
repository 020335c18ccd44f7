package io.hami.framework.plugins.interpodaffinity;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.QueueingHint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The events that may let a pod rejected by InterPodAffinity fit, and their queueing hints. */
final class AffinityHints {
  private final AffinityNamespaces namespaces;

  AffinityHints(AffinityNamespaces namespaces) {
    this.namespaces = namespaces;
  }

  List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD,
                ActionType.ADD,
                ActionType.UPDATE_POD_LABEL,
                ActionType.DELETE),
            this::afterPodChange),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_LABEL),
            this::afterNodeChange),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NAMESPACE, ActionType.ADD, ActionType.UPDATE_OTHER),
            this::afterNamespaceChange));
  }

  private PodAffinities hintTerms(Pod pod) {
    if (!PodAffinities.declaresAny(pod)) {
      return InterPodAffinityPlugin.NO_TERMS;
    }
    return PodAffinities.of(pod, new ArrayList<>()).resolveNamespaces(namespaces::matching);
  }

  /**
   * An assigned pod was added, relabelled or deleted: the pod may fit if a pod now matches all of
   * its required affinity terms, if a pod that matched one of its anti-affinity terms no longer
   * does, or if a pod whose required anti-affinity selected it is gone or no longer selects it.
   */
  QueueingHint afterPodChange(Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    Pod oldPod = oldObj instanceof Pod p ? p : null;
    Pod newPod = newObj instanceof Pod p ? p : null;
    if (oldPod == null && newPod == null) {
      return QueueingHint.SKIP;
    }
    PodAffinities terms = hintTerms(pod);
    if (newPod != null && matchesAllAffinity(terms, newPod) && !matchesAllAffinity(terms, oldPod)) {
      return QueueingHint.QUEUE;
    }
    if (oldPod != null && matchesAnyAnti(terms, oldPod) && !matchesAnyAnti(terms, newPod)) {
      return QueueingHint.QUEUE;
    }
    if (oldPod != null && PodAffinities.declaresAny(oldPod)) {
      String ns = PodAffinities.namespaceOf(pod);
      Target in = new Target(ns, PodAffinities.labelsOf(pod), namespaces.labels(ns));
      if (antiAffinitySelects(oldPod, in) && (newPod == null || !antiAffinitySelects(newPod, in))) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }

  private static boolean matchesAllAffinity(PodAffinities terms, @Nullable Pod p) {
    return p != null
        && PodAffinities.matchesAll(
            terms.requiredAffinity(),
            PodAffinities.namespaceOf(p),
            PodAffinities.labelsOf(p),
            null);
  }

  private static boolean matchesAnyAnti(PodAffinities terms, @Nullable Pod p) {
    return p != null
        && PodAffinities.matchesAny(
            terms.requiredAntiAffinity(),
            PodAffinities.namespaceOf(p),
            PodAffinities.labelsOf(p),
            null);
  }

  private static boolean antiAffinitySelects(Pod existing, Target in) {
    if (!PodAffinities.declaresAny(existing)) {
      return false;
    }
    PodAffinities t = PodAffinities.of(existing, new ArrayList<>());
    return PodAffinities.matchesAny(
        t.requiredAntiAffinity(), in.namespace(), in.labels(), in.nsLabels());
  }

  /**
   * A node was added or relabelled: the pod may fit there if the node has every topology key of its
   * required affinity and a key of an affinity term appeared or changed value, or, for
   * anti-affinity (its own or the existing pods'), if the node is new or left a topology domain.
   */
  QueueingHint afterNodeChange(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (!(newObj instanceof Node newNode)) {
      return QueueingHint.SKIP;
    }
    Map<String, String> newLabels = labelsOf(newNode);
    // Only topology keys matter here: no namespace to resolve.
    PodAffinities terms =
        PodAffinities.declaresAny(pod)
            ? PodAffinities.of(pod, new ArrayList<>())
            : InterPodAffinityPlugin.NO_TERMS;
    for (AffinityTerm t : terms.requiredAffinity()) {
      if (!newLabels.containsKey(t.topologyKey())) {
        // Still fails the pod's required affinity there, whatever else changed.
        return QueueingHint.SKIP;
      }
    }
    if (!(oldObj instanceof Node oldNode)) {
      return QueueingHint.QUEUE;
    }
    Map<String, String> oldLabels = labelsOf(oldNode);
    for (AffinityTerm t : terms.requiredAffinity()) {
      String before = oldLabels.get(t.topologyKey());
      if (!Objects.equals(newLabels.get(t.topologyKey()), before)) {
        return QueueingHint.QUEUE;
      }
    }
    for (Map.Entry<String, String> e : oldLabels.entrySet()) {
      // The node left the domain of this key: anti-affinity over it, the pod's own or an
      // existing pod's, may no longer apply there.
      if (!Objects.equals(e.getValue(), newLabels.get(e.getKey()))) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }

  private static Map<String, String> labelsOf(HasMetadata obj) {
    Map<String, String> l = obj.getMetadata() == null ? null : obj.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  /**
   * A namespace was added or relabelled: the pod's terms with a namespace selector may now select
   * pods there, and existing pods' namespace selectors may no longer select the pod's namespace.
   */
  QueueingHint afterNamespaceChange(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    if (newObj == null || newObj.getMetadata() == null) {
      return QueueingHint.SKIP;
    }
    if (PodAffinities.namespaceOf(pod).equals(newObj.getMetadata().getName())) {
      return QueueingHint.QUEUE;
    }
    if (!PodAffinities.declaresAny(pod)) {
      return QueueingHint.SKIP;
    }
    PodAffinities terms = PodAffinities.of(pod, new ArrayList<>());
    for (AffinityTerm t : terms.requiredAffinity()) {
      if (t.hasNamespaceSelector()) {
        return QueueingHint.QUEUE;
      }
    }
    for (AffinityTerm t : terms.requiredAntiAffinity()) {
      if (t.hasNamespaceSelector()) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }
}
