package io.hami.framework.plugins.defaultpreemption;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A node where evicting {@code victims} lets the pod fit.
 *
 * @param victims most important first
 * @param pdbViolations how many of them a PodDisruptionBudget does not allow to disrupt
 */
record Candidate(String node, List<Pod> victims, int pdbViolations) {
  Candidate {
    victims = List.copyOf(victims);
  }
}
