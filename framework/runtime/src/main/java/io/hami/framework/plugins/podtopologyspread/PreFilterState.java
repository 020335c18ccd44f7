package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.StateData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What Filter needs for one pod: per hard constraint, the number of matching pods in each eligible
 * domain and the global minimum over them. Mutable only through {@link #update}, which
 * PreFilterExtensions call on a {@link #copy()}; Filter only reads.
 */
final class PreFilterState implements StateData {
  final List<Constraint> constraints;
  final String namespace;
  final Constraint.PodContext pod;

  /** Per constraint: whether the incoming pod itself matches the selector (1) or not (0). */
  final int[] selfMatch;

  /** Per constraint: domain (topology value) to matching pods, one entry per eligible domain. */
  private final List<Map<String, Integer>> counts;

  /** Per constraint: the smallest count of {@link #counts}; MAX_VALUE when there is none. */
  private final int[] min;

  private PreFilterState(
      List<Constraint> constraints,
      String namespace,
      Constraint.PodContext pod,
      int[] selfMatch,
      List<Map<String, Integer>> counts,
      int[] min) {
    this.constraints = constraints;
    this.namespace = namespace;
    this.pod = pod;
    this.selfMatch = selfMatch;
    this.counts = counts;
    this.min = min;
  }

  /** Counts the matching pods of every eligible node of {@code nodes}, fanning out on {@code p}. */
  static PreFilterState compute(
      List<Constraint> constraints, Pod pod, List<NodeInfo> nodes, Parallelizer p) {
    String ns = PodTopologySpreadPlugin.namespace(pod);
    Constraint.PodContext ctx = Constraint.PodContext.of(pod);
    int k = constraints.size();
    // -1: the node is no member of an eligible domain for that constraint.
    int[] perNode = new int[nodes.size() * k];
    NodeCounts.Key[] keys = new NodeCounts.Key[k];
    for (int i = 0; i < k; i++) {
      keys[i] = NodeCounts.key(constraints.get(i).selector(), ns);
    }
    p.until(
        nodes.size(),
        n -> {
          NodeInfo node = nodes.get(n);
          boolean all = Constraint.hasAllKeys(node.labels(), constraints);
          for (int i = 0; i < k; i++) {
            Constraint c = constraints.get(i);
            perNode[n * k + i] =
                all && c.includes(node, ctx) ? NodeCounts.count(node, keys[i]) : -1;
          }
        });
    List<Map<String, Integer>> counts = new ArrayList<>(k);
    int[] selfMatch = new int[k];
    for (int i = 0; i < k; i++) {
      Constraint c = constraints.get(i);
      Map<String, Integer> m = new HashMap<>();
      for (int n = 0; n < nodes.size(); n++) {
        int v = perNode[n * k + i];
        if (v >= 0) {
          m.merge(nodes.get(n).labels().get(c.topologyKey()), v, Integer::sum);
        }
      }
      counts.add(m);
      selfMatch[i] = c.selector().matches(pod.getMetadata().getLabels()) ? 1 : 0;
    }
    int[] min = new int[k];
    PreFilterState s = new PreFilterState(constraints, ns, ctx, selfMatch, counts, min);
    for (int i = 0; i < k; i++) {
      s.rescan(i);
    }
    return s;
  }

  /** The number of matching pods in {@code domain} for constraint {@code i}; 0 if none. */
  int count(int i, String domain) {
    Integer n = counts.get(i).get(domain);
    return n == null ? 0 : n;
  }

  /** The number of eligible domains of constraint {@code i}. */
  int domains(int i) {
    return counts.get(i).size();
  }

  /**
   * The global minimum Filter measures skew against: the smallest domain count, or 0 when there are
   * fewer eligible domains than the constraint's minDomains.
   */
  int minMatch(int i) {
    return counts.get(i).size() < constraints.get(i).minDomains() ? 0 : min[i];
  }

  private void rescan(int i) {
    int m = Integer.MAX_VALUE;
    for (int v : counts.get(i).values()) {
      m = Math.min(m, v);
    }
    min[i] = m;
  }

  /**
   * Counts {@code other} on {@code node} with {@code delta} (+1 added, -1 removed), if it is in the
   * incoming pod's namespace, the node is eligible and a constraint's selector matches it.
   */
  void update(Pod other, Node node, int delta) {
    if (!namespace.equals(PodTopologySpreadPlugin.namespace(other))) {
      return;
    }
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels == null || !Constraint.hasAllKeys(labels, constraints)) {
      return;
    }
    for (int i = 0; i < constraints.size(); i++) {
      Constraint c = constraints.get(i);
      if (c.selector().isEmpty()
          || !NodeCounts.matches(other, c.selector(), namespace)
          || !c.includes(node, pod)) {
        continue;
      }
      String domain = labels.get(c.topologyKey());
      Integer before = counts.get(i).get(domain);
      int after = (before == null ? 0 : before) + delta;
      counts.get(i).put(domain, after);
      if (after < min[i]) {
        min[i] = after;
      } else if (before != null && before == min[i] && delta > 0) {
        // The domain held the minimum; another may hold it too, or the next one up now does.
        rescan(i);
      }
    }
  }

  @Override
  public PreFilterState copy() {
    List<Map<String, Integer>> c = new ArrayList<>(counts.size());
    for (Map<String, Integer> m : counts) {
      c.add(new HashMap<>(m));
    }
    return new PreFilterState(constraints, namespace, pod, selfMatch, c, min.clone());
  }
}
