package io.hami.sim;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A cluster trace: nodes and the pods to place on them, with a name for reports.
 *
 * @param name short name of the pod trace (e.g. {@code default})
 */
public record Trace(String name, List<TraceNode> nodes, List<TracePod> pods) {
  public Trace {
    Objects.requireNonNull(name, "name");
    nodes = List.copyOf(nodes);
    pods = List.copyOf(pods);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("trace " + name + " has no nodes");
    }
    if (pods.isEmpty()) {
      throw new IllegalArgumentException("trace " + name + " has no pods");
    }
    Set<String> seen = new HashSet<>();
    for (TraceNode n : nodes) {
      if (!seen.add(n.name())) {
        throw new IllegalArgumentException("trace " + name + ": duplicate node name " + n.name());
      }
    }
    seen.clear();
    for (TracePod p : pods) {
      if (!seen.add(p.name())) {
        throw new IllegalArgumentException("trace " + name + ": duplicate pod name " + p.name());
      }
    }
  }

  /** GPU capacity of the nodes in milli-GPU. */
  public long gpuCapacityMilli() {
    return nodes.stream().mapToLong(n -> n.gpus() * 1000L).sum();
  }

  /** Total GPU request of the pods in milli-GPU. */
  public long gpuRequestMilli() {
    return pods.stream().mapToLong(TracePod::totalGpuMilli).sum();
  }
}
