package io.hami.framework.plugins.interpodaffinity;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.StateData;
import java.util.List;
import java.util.Map;

/**
 * What Filter needs of the cluster for one incoming pod, counted once in PreFilter per topology
 * pair: the existing pods whose required anti-affinity selects the incoming pod, the existing pods
 * that match every required affinity term of the incoming pod, and those that match one of its
 * required anti-affinity terms. AddPod/RemovePod update the counts on a {@link #copy()}.
 */
final class AffinityState implements StateData {
  private final PodAffinities pod;
  private final Map<String, String> namespaceLabels;
  private final boolean matchesOwnAffinity;
  final TopologyCounts existingAntiAffinity;
  final TopologyCounts affinity;
  final TopologyCounts antiAffinity;

  /**
   * Creates empty counts for the incoming pod.
   *
   * @param pod the incoming pod's terms, namespace selectors resolved
   * @param namespaceLabels the labels of the incoming pod's namespace
   */
  AffinityState(PodAffinities pod, Map<String, String> namespaceLabels) {
    this(pod, namespaceLabels, new TopologyCounts(), new TopologyCounts(), new TopologyCounts());
  }

  private AffinityState(
      PodAffinities pod,
      Map<String, String> namespaceLabels,
      TopologyCounts existingAntiAffinity,
      TopologyCounts affinity,
      TopologyCounts antiAffinity) {
    this.pod = pod;
    this.namespaceLabels = namespaceLabels;
    this.matchesOwnAffinity =
        PodAffinities.matchesAll(pod.requiredAffinity(), pod.namespace(), pod.labels(), null);
    this.existingAntiAffinity = existingAntiAffinity;
    this.affinity = affinity;
    this.antiAffinity = antiAffinity;
  }

  PodAffinities pod() {
    return pod;
  }

  /** Counts an existing pod's required anti-affinity terms that select the incoming pod. */
  void countExistingAntiAffinity(
      PodAffinities existing, Map<String, String> nodeLabels, long multiplier) {
    List<AffinityTerm> terms = existing.requiredAntiAffinity();
    for (int i = 0; i < terms.size(); i++) {
      AffinityTerm t = terms.get(i);
      if (t.matches(pod.namespace(), pod.labels(), namespaceLabels)) {
        existingAntiAffinity.addForNode(t.topologyKey(), nodeLabels, multiplier);
      }
    }
  }

  /** Counts an existing pod against the incoming pod's required affinity and anti-affinity. */
  void countIncomingTerms(Pod existing, Map<String, String> nodeLabels, long multiplier) {
    countIncomingTerms(
        PodAffinities.namespaceOf(existing),
        PodAffinities.labelsOf(existing),
        nodeLabels,
        multiplier);
  }

  /**
   * Counts {@code multiplier} existing pods of namespace {@code ns} labelled {@code labels} against
   * the incoming pod's required affinity and anti-affinity.
   */
  void countIncomingTerms(
      String ns, Map<String, String> labels, Map<String, String> nodeLabels, long multiplier) {
    if (nodeLabels.isEmpty()) {
      return;
    }
    List<AffinityTerm> aff = pod.requiredAffinity();
    if (PodAffinities.matchesAll(aff, ns, labels, null)) {
      for (int i = 0; i < aff.size(); i++) {
        affinity.addForNode(aff.get(i).topologyKey(), nodeLabels, multiplier);
      }
    }
    List<AffinityTerm> anti = pod.requiredAntiAffinity();
    for (int i = 0; i < anti.size(); i++) {
      AffinityTerm t = anti.get(i);
      if (t.matches(ns, labels, null)) {
        antiAffinity.addForNode(t.topologyKey(), nodeLabels, multiplier);
      }
    }
  }

  /** Whether a node with these labels satisfies the incoming pod's required affinity. */
  boolean satisfiesAffinity(Map<String, String> nodeLabels) {
    List<AffinityTerm> terms = pod.requiredAffinity();
    boolean podsExist = true;
    for (int i = 0; i < terms.size(); i++) {
      String key = terms.get(i).topologyKey();
      String value = nodeLabels.get(key);
      if (value == null) {
        return false;
      }
      if (affinity.get(key, value) <= 0) {
        podsExist = false;
      }
    }
    // The first pod of a series that has affinity to itself: no pod anywhere matches its terms,
    // but it matches them itself, so it may start the series on any node with the topology keys.
    return podsExist || (affinity.isEmpty() && matchesOwnAffinity);
  }

  /** Whether a node with these labels satisfies the incoming pod's required anti-affinity. */
  boolean satisfiesAntiAffinity(Map<String, String> nodeLabels) {
    if (antiAffinity.isEmpty()) {
      return true;
    }
    List<AffinityTerm> terms = pod.requiredAntiAffinity();
    for (int i = 0; i < terms.size(); i++) {
      String key = terms.get(i).topologyKey();
      if (antiAffinity.get(key, nodeLabels.get(key)) > 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether a node with these labels satisfies the existing pods' required anti-affinity. */
  boolean satisfiesExistingAntiAffinity(Map<String, String> nodeLabels) {
    return existingAntiAffinity.isEmpty() || !existingAntiAffinity.anyPositive(nodeLabels);
  }

  /** Whether no pair is counted at all. */
  boolean countsNothing() {
    return existingAntiAffinity.isEmpty() && affinity.isEmpty() && antiAffinity.isEmpty();
  }

  /** Returns a state for the same pod with no counts (a partial state of a parallel piece). */
  AffinityState emptyCopy() {
    return new AffinityState(
        pod, namespaceLabels, new TopologyCounts(), new TopologyCounts(), new TopologyCounts());
  }

  /** Adds the counts of {@code other}, a state for the same pod. */
  void addAll(AffinityState other) {
    existingAntiAffinity.addAll(other.existingAntiAffinity);
    affinity.addAll(other.affinity);
    antiAffinity.addAll(other.antiAffinity);
  }

  @Override
  public AffinityState copy() {
    return new AffinityState(
        pod, namespaceLabels, existingAntiAffinity.copy(), affinity.copy(), antiAffinity.copy());
  }
}
