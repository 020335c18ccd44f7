package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.StateData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What Score needs for one pod: its soft constraints, per non-hostname constraint the matching pods
 * in each domain of a feasible node, the weight of each constraint, and the feasible nodes that are
 * not scored (lacking a topology key). Immutable once computed.
 */
final class PreScoreState implements StateData {
  private final List<Constraint> constraints;

  /** Per constraint: domain to matching pods; empty for hostname constraints (counted in Score). */
  private final List<Map<String, Long>> counts;

  private final double[] weights;
  private final Set<String> ignored;

  /**
   * The nodes PreScore works over.
   *
   * @param feasible the nodes that passed Filter: their domains are the ones counted
   * @param all every node of the snapshot: the pods counted in those domains live on them
   * @param requireAllKeys whether a node must hold every topology key to be scored or counted
   */
  record Nodes(List<NodeInfo> feasible, List<NodeInfo> all, boolean requireAllKeys) {}

  private PreScoreState(
      List<Constraint> constraints,
      List<Map<String, Long>> counts,
      double[] weights,
      Set<String> ignored) {
    this.constraints = constraints;
    this.counts = counts;
    this.weights = weights;
    this.ignored = ignored;
  }

  static PreScoreState compute(
      List<Constraint> constraints, Pod pod, Nodes nodes, FrameworkHandle handle) {
    int k = constraints.size();
    Set<String> ignored = new HashSet<>();
    List<Map<String, Long>> counts = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      counts.add(new HashMap<>());
    }
    boolean anyZonal = false;
    for (NodeInfo n : nodes.feasible()) {
      if (nodes.requireAllKeys() && !Constraint.hasAllKeys(n.labels(), constraints)) {
        ignored.add(n.name());
        continue;
      }
      for (int i = 0; i < k; i++) {
        Constraint c = constraints.get(i);
        if (!c.isHostname()) {
          // A node without the key counts toward the "" domain, as in kube-scheduler.
          counts.get(i).putIfAbsent(n.labels().getOrDefault(c.topologyKey(), ""), 0L);
          anyZonal = true;
        }
      }
    }
    double[] weights = new double[k];
    for (int i = 0; i < k; i++) {
      int size =
          constraints.get(i).isHostname()
              ? nodes.feasible().size() - ignored.size()
              : counts.get(i).size();
      weights[i] = Math.log(size + 2);
    }
    if (anyZonal) {
      countDomains(constraints, pod, nodes, handle, counts);
    }
    return new PreScoreState(constraints, counts, weights, ignored);
  }

  /** Adds the matching pods of every eligible node to the counts of the feasible nodes' domains. */
  private static void countDomains(
      List<Constraint> constraints,
      Pod pod,
      Nodes nodes,
      FrameworkHandle handle,
      List<Map<String, Long>> counts) {
    int k = constraints.size();
    List<NodeInfo> all = nodes.all();
    String ns = PodTopologySpreadPlugin.namespace(pod);
    Constraint.PodContext ctx = Constraint.PodContext.of(pod);
    int[] perNode = new int[all.size() * k];
    handle
        .parallelizer()
        .until(
            all.size(),
            n -> {
              NodeInfo node = all.get(n);
              boolean skip =
                  nodes.requireAllKeys() && !Constraint.hasAllKeys(node.labels(), constraints);
              for (int i = 0; i < k; i++) {
                Constraint c = constraints.get(i);
                String domain = node.labels().getOrDefault(c.topologyKey(), "");
                perNode[n * k + i] =
                    skip
                            || c.isHostname()
                            || !counts.get(i).containsKey(domain)
                            || !c.includes(node, ctx)
                        ? 0
                        : NodeCounts.count(node, c.selector(), ns);
              }
            });
    for (int n = 0; n < all.size(); n++) {
      for (int i = 0; i < k; i++) {
        int v = perNode[n * k + i];
        if (v > 0) {
          Constraint c = constraints.get(i);
          counts
              .get(i)
              .merge(all.get(n).labels().getOrDefault(c.topologyKey(), ""), (long) v, Long::sum);
        }
      }
    }
  }

  boolean ignored(String nodeName) {
    return ignored.contains(nodeName);
  }

  /** The raw score: per constraint the matching pods in the node's domain, weighted. */
  long score(NodeInfo node, String namespace) {
    if (ignored.contains(node.name())) {
      return 0;
    }
    double score = 0;
    Map<String, String> labels = node.labels();
    for (int i = 0; i < constraints.size(); i++) {
      Constraint c = constraints.get(i);
      String domain = labels.get(c.topologyKey());
      if (domain == null) {
        continue;
      }
      long count;
      if (c.isHostname()) {
        count = NodeCounts.count(node, c.selector(), namespace);
      } else {
        Long v = counts.get(i).get(domain);
        count = v == null ? 0 : v;
      }
      score += count * weights[i] + (c.maxSkew() - 1);
    }
    return Math.round(score);
  }
}
