package io.hami.cmd.explain;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What was read from the API for one pod: the pod, its Events, the nodes it names (absent when the
 * node does not exist) and the pods named as lock holders (absent when deleted).
 */
record PodFacts(
    Pod pod,
    List<Event> events,
    Map<String, Optional<Node>> nodes,
    Map<String, Optional<Pod>> holders) {
  PodFacts {
    requireNonNull(pod, "pod");
    events = List.copyOf(events);
    nodes = Map.copyOf(nodes);
    holders = Map.copyOf(holders);
  }
}
