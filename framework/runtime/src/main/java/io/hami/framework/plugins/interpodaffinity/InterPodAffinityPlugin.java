package io.hami.framework.plugins.interpodaffinity;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Required and preferred inter-pod affinity and anti-affinity, as kube-scheduler's InterPodAffinity
 * plugin: Filter enforces the incoming pod's required terms and the existing pods' required
 * anti-affinity against it; Score ranks nodes by the incoming pod's preferred terms, the existing
 * pods' preferred terms and (weighted by {@code hardPodAffinityWeight}) their required affinity
 * terms, normalized min-max to 0..100.
 *
 * <p>Cost: a pod's terms are compiled once per pod object ({@link PodAffinities#of}). The pods of a
 * node are grouped once per {@link NodeInfo} instance and kept on it ({@link NodeLocal}): by equal
 * terms, and (once an incoming pod has terms) by namespace and labels, so that a term is matched
 * once per group rather than per pod. PreFilter and PreScore skip, after one pass over the nodes
 * reading that slot, when neither the pod nor any existing pod has terms that apply; otherwise
 * PreFilter counts matching pods per topology pair once, and Filter is a lookup per term.
 */
public final class InterPodAffinityPlugin
    implements PreFilterPlugin,
        PreFilterExtensions,
        FilterPlugin,
        FilterEquivalence,
        PreScorePlugin,
        ScorePlugin,
        ScoreExtensions,
        EnqueueExtensions {
  public static final String NAME = "InterPodAffinity";
  public static final String AFFINITY_REASON = "node(s) didn't match pod affinity rules";
  public static final String ANTI_AFFINITY_REASON = "node(s) didn't match pod anti-affinity rules";
  public static final String EXISTING_ANTI_AFFINITY_REASON =
      "node(s) didn't satisfy existing pods anti-affinity rules";

  private static final Status AFFINITY_REJECTED =
      Status.unresolvable(AFFINITY_REASON).withPlugin(NAME);
  private static final Status ANTI_AFFINITY_REJECTED =
      Status.unschedulable(ANTI_AFFINITY_REASON).withPlugin(NAME);
  private static final Status EXISTING_ANTI_AFFINITY_REJECTED =
      Status.unschedulable(EXISTING_ANTI_AFFINITY_REASON).withPlugin(NAME);

  static final StateKey<AffinityState> PRE_FILTER =
      StateKey.of("PreFilter" + NAME, AffinityState.class);
  private static final StateKey<PreScoreState> PRE_SCORE =
      StateKey.of("PreScore" + NAME, PreScoreState.class);

  /** The compiled terms of the pods on a node that declare pod (anti-)affinity. */
  private static final NodeLocal<NodePods> PODS =
      NodeLocal.create("interpodaffinity: pods with affinity");

  /** Pods of one node that share a namespace and labels: terms select all of them or none. */
  record LabelGroup(String namespace, Map<String, String> labels, int count) {}

  /** Pods of one node whose compiled terms are equal: they count and score alike. */
  record TermsGroup(PodAffinities terms, int count) {}

  /**
   * The pods of one node that declare any pod (anti-)affinity, grouped by their terms, and those
   * groups with required anti-affinity. Pods of one workload share terms, so a term is matched once
   * per group, not per pod.
   */
  record NodePods(
      ImmutableList<TermsGroup> withAffinity, ImmutableList<TermsGroup> withRequiredAntiAffinity) {
    static final NodePods NONE = new NodePods(ImmutableList.of(), ImmutableList.of());
  }

  /**
   * The pods of a node grouped by namespace and labels, computed when an incoming pod has terms.
   */
  private static final NodeLocal<ImmutableList<LabelGroup>> LABEL_GROUPS =
      NodeLocal.create("interpodaffinity: pods by labels");

  private record PreScoreState(TopologyCounts scores) implements StateData {}

  static final PodAffinities NO_TERMS =
      new PodAffinities(
          "",
          Map.of(),
          ImmutableList.of(),
          ImmutableList.of(),
          ImmutableList.of(),
          ImmutableList.of());

  private final InterPodAffinityArgs args;
  private final FrameworkHandle handle;
  private final AffinityNamespaces namespaces;
  private final AffinityHints hints;
  private final ClusterSummary summary = new ClusterSummary();

  private InterPodAffinityPlugin(InterPodAffinityArgs args, FrameworkHandle handle) {
    this.args = args;
    this.handle = handle;
    this.namespaces = new AffinityNamespaces(handle.lister(ObjectKind.NAMESPACE));
    this.hints = new AffinityHints(namespaces);
  }

  public static Plugin create(InterPodAffinityArgs args, FrameworkHandle handle) {
    return new InterPodAffinityPlugin(args, handle);
  }

  public static PluginRegistration<InterPodAffinityArgs> registration() {
    return PluginRegistration.of(
        NAME,
        InterPodAffinityArgs.class,
        InterPodAffinityArgs.defaults(),
        InterPodAffinityPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The pods of {@code node} with terms, grouped ({@link NodePods}), once per NodeInfo instance.
   */
  static NodePods podsOf(NodeInfo node) {
    NodePods kept = node.local(PODS);
    if (kept != null) {
      return kept;
    }
    List<PodInfo> pods = node.pods();
    Map<PodAffinities, Integer> byTerms = null;
    for (int i = 0; i < pods.size(); i++) {
      Pod p = pods.get(i).pod();
      if (!PodAffinities.declaresAny(p)) {
        continue;
      }
      // A malformed term of an existing pod is left out, as kube-scheduler does.
      PodAffinities terms = PodAffinities.of(p, new ArrayList<>());
      if (terms.isEmpty()) {
        continue;
      }
      if (byTerms == null) {
        byTerms = new LinkedHashMap<>();
      }
      byTerms.merge(terms, 1, Integer::sum);
    }
    NodePods result = NodePods.NONE;
    if (byTerms != null) {
      ImmutableList.Builder<TermsGroup> all = ImmutableList.builder();
      ImmutableList.Builder<TermsGroup> anti = ImmutableList.builder();
      byTerms.forEach(
          (terms, n) -> {
            TermsGroup g = new TermsGroup(terms, n);
            all.add(g);
            if (!terms.requiredAntiAffinity().isEmpty()) {
              anti.add(g);
            }
          });
      result = new NodePods(all.build(), anti.build());
    }
    node.setLocal(PODS, result);
    return result;
  }

  /** The pods of {@code node} grouped by namespace and labels, once per NodeInfo instance. */
  static ImmutableList<LabelGroup> labelGroupsOf(NodeInfo node) {
    ImmutableList<LabelGroup> kept = node.local(LABEL_GROUPS);
    if (kept != null) {
      return kept;
    }
    List<PodInfo> pods = node.pods();
    Map<LabelKey, Integer> byLabels = new LinkedHashMap<>();
    for (int i = 0; i < pods.size(); i++) {
      Pod p = pods.get(i).pod();
      byLabels.merge(
          new LabelKey(PodAffinities.namespaceOf(p), PodAffinities.labelsOf(p)), 1, Integer::sum);
    }
    ImmutableList.Builder<LabelGroup> groups =
        ImmutableList.builderWithExpectedSize(byLabels.size());
    byLabels.forEach((k, n) -> groups.add(new LabelGroup(k.namespace(), k.labels(), n)));
    ImmutableList<LabelGroup> result = groups.build();
    node.setLocal(LABEL_GROUPS, result);
    return result;
  }

  private record LabelKey(String namespace, Map<String, String> labels) {}

  // ---- PreFilter and Filter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    PodAffinities terms = NO_TERMS;
    if (PodAffinities.declaresAny(pod)) {
      List<String> errors = new ArrayList<>();
      terms = PodAffinities.of(pod, errors);
      if (!errors.isEmpty()) {
        return PreFilterResult.of(Status.unresolvable("invalid pod affinity: " + errors.get(0)));
      }
    }
    List<NodeInfo> nodes = snapshot.nodes();
    summary.refresh(snapshot);
    if (!terms.hasRequired() && !summary.anyRequiredAntiAffinity()) {
      return PreFilterResult.skip();
    }
    if (terms == NO_TERMS) {
      terms =
          new PodAffinities(
              PodAffinities.namespaceOf(pod),
              PodAffinities.labelsOf(pod),
              ImmutableList.of(),
              ImmutableList.of(),
              ImmutableList.of(),
              ImmutableList.of());
    }
    AffinityState s =
        new AffinityState(
            terms.resolveNamespaces(namespaces::matching), namespaces.labels(terms.namespace()));
    boolean incoming = terms.hasRequired();
    int chunks = chunks(nodes.size(), incoming);
    if (chunks <= 1) {
      count(s, nodes, 0, nodes.size(), incoming);
    } else {
      // Disjoint node ranges counted into partial states, merged on this thread.
      AffinityState[] parts = new AffinityState[chunks];
      int size = (nodes.size() + chunks - 1) / chunks;
      handle
          .parallelizer()
          .until(
              chunks,
              c -> {
                AffinityState part = s.emptyCopy();
                count(part, nodes, c * size, Math.min(nodes.size(), (c + 1) * size), incoming);
                parts[c] = part;
              });
      for (AffinityState part : parts) {
        s.addAll(part);
      }
    }
    if (terms.requiredAffinity().isEmpty() && s.countsNothing()) {
      // No anti-affinity, the pod's or an existing pod's, applies to this pod anywhere: Filter
      // would pass on every node. Skipping also keeps the other plugins' verdict reuse.
      return PreFilterResult.skip();
    }
    state.write(PRE_FILTER, s);
    return PreFilterResult.allNodes();
  }

  /** Nodes per parallel piece of PreFilter counting, below which it runs on one thread. */
  private static final int NODES_PER_CHUNK = 512;

  private int chunks(int nodes, boolean incoming) {
    int parallelism = handle.parallelizer().parallelism();
    if (!incoming || parallelism <= 1 || nodes < 2 * NODES_PER_CHUNK) {
      return 1;
    }
    return Math.min(parallelism * 2, nodes / NODES_PER_CHUNK);
  }

  private static void count(
      AffinityState s, List<NodeInfo> nodes, int from, int to, boolean incoming) {
    for (int i = from; i < to; i++) {
      NodeInfo n = nodes.get(i);
      Map<String, String> labels = n.labels();
      for (TermsGroup g : podsOf(n).withRequiredAntiAffinity()) {
        s.countExistingAntiAffinity(g.terms(), labels, g.count());
      }
      if (incoming && !labels.isEmpty() && !n.pods().isEmpty()) {
        for (LabelGroup g : labelGroupsOf(n)) {
          s.countIncomingTerms(g.namespace(), g.labels(), labels, g.count());
        }
      }
    }
  }

  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo node) {
    return update(state, podToAdd, node, 1);
  }

  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo node) {
    return update(state, podToRemove, node, -1);
  }

  private static Status update(CycleState state, PodInfo p, NodeInfo node, long multiplier) {
    AffinityState s = state.get(PRE_FILTER);
    if (s == null) {
      // PreFilter skipped the pod: nothing is counted, and Filter does not run.
      return Status.success();
    }
    Map<String, String> labels = node.labels();
    if (PodAffinities.declaresAny(p.pod())) {
      s.countExistingAntiAffinity(PodAffinities.of(p.pod(), new ArrayList<>()), labels, multiplier);
    }
    s.countIncomingTerms(p.pod(), labels, multiplier);
    return Status.success();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    AffinityState s = state.get(PRE_FILTER);
    if (s == null) {
      return Status.error(
          "no PreFilter state of " + NAME + " for pod " + pod.getMetadata().getName());
    }
    Map<String, String> labels = node.labels();
    if (!s.satisfiesAffinity(labels)) {
      return AFFINITY_REJECTED;
    }
    if (!s.satisfiesAntiAffinity(labels)) {
      return ANTI_AFFINITY_REJECTED;
    }
    if (!s.satisfiesExistingAntiAffinity(labels)) {
      return EXISTING_ANTI_AFFINITY_REJECTED;
    }
    return Status.success();
  }

  /**
   * Never a class: the verdict depends on the pods of other nodes, so it is computed for every pod.
   * Implemented only so that pods whose PreFilter skips this plugin keep the other plugins' verdict
   * reuse (a skipped plugin is not asked).
   */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    return null;
  }

  // ---- PreScore, Score and NormalizeScore

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    if (feasibleNodes.isEmpty()) {
      return Status.skip();
    }
    PodAffinities terms = NO_TERMS;
    if (PodAffinities.declaresAny(pod)) {
      terms = PodAffinities.of(pod, new ArrayList<>());
    }
    boolean own = terms.hasPreferred();
    Snapshot snapshot = handle.snapshot();
    List<NodeInfo> nodes = snapshot.nodes();
    if (!own && args.ignorePreferredTermsOfExistingPods()) {
      return Status.skip();
    }
    summary.refresh(snapshot);
    if (!own && !summary.anyAffinity()) {
      return Status.skip();
    }
    String ns = PodAffinities.namespaceOf(pod);
    Target incoming = new Target(ns, PodAffinities.labelsOf(pod), namespaces.labels(ns));
    terms = terms.resolveNamespaces(namespaces::matching);
    TopologyCounts scores = new TopologyCounts();
    // A node's weights are summed per topology key first and added to its pair once: the pair
    // lookups, not the matching, dominated PreScore when many pods match.
    KeyTally tally = new KeyTally();
    for (int i = 0; i < nodes.size(); i++) {
      NodeInfo n = nodes.get(i);
      Map<String, String> nodeLabels = n.labels();
      if (nodeLabels.isEmpty()) {
        continue;
      }
      if (own && !n.pods().isEmpty()) {
        List<LabelGroup> groups = labelGroupsOf(n);
        tallyMatchingPods(tally, terms.preferredAffinity(), groups, 1);
        tallyMatchingPods(tally, terms.preferredAntiAffinity(), groups, -1);
      }
      List<TermsGroup> withAffinity = podsOf(n).withAffinity();
      for (int j = 0; j < withAffinity.size(); j++) {
        TermsGroup g = withAffinity.get(j);
        tallyExistingTerms(tally, g.terms(), incoming, g.count());
      }
      tally.drainInto(scores, nodeLabels);
    }
    state.write(PRE_SCORE, new PreScoreState(scores));
    return Status.success();
  }

  /** Adds, per term, its weight times the count of the pods of {@code groups} it matches. */
  private static void tallyMatchingPods(
      KeyTally tally, List<AffinityTerm> terms, List<LabelGroup> groups, int sign) {
    for (int i = 0; i < terms.size(); i++) {
      AffinityTerm t = terms.get(i);
      long matched = 0;
      for (int j = 0; j < groups.size(); j++) {
        LabelGroup g = groups.get(j);
        if (t.matches(g.namespace(), g.labels(), null)) {
          matched += g.count();
        }
      }
      if (matched > 0) {
        tally.add(t.topologyKey(), sign * t.weight() * matched);
      }
    }
  }

  /** Adds the terms of {@code pods} existing pods that all have {@code existing} terms. */
  private void tallyExistingTerms(KeyTally tally, PodAffinities existing, Target in, int pods) {
    int hard = args.hardPodAffinityWeight();
    if (hard > 0) {
      for (AffinityTerm t : existing.requiredAffinity()) {
        if (t.matches(in.namespace(), in.labels(), in.nsLabels())) {
          tally.add(t.topologyKey(), (long) hard * pods);
        }
      }
    }
    if (!args.ignorePreferredTermsOfExistingPods()) {
      tallyMatching(tally, existing.preferredAffinity(), in, pods);
      tallyMatching(tally, existing.preferredAntiAffinity(), in, -pods);
    }
  }

  private static void tallyMatching(
      KeyTally tally, List<AffinityTerm> terms, Target target, long multiplier) {
    for (int i = 0; i < terms.size(); i++) {
      AffinityTerm t = terms.get(i);
      if (t.matches(target.namespace(), target.labels(), target.nsLabels())) {
        tally.add(t.topologyKey(), multiplier * t.weight());
      }
    }
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    TopologyCounts scores = state.require(PRE_SCORE).scores();
    return scores.isEmpty() ? 0 : scores.sumFor(node.labels());
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    PreScoreState s = state.get(PRE_SCORE);
    if (s == null || s.scores().isEmpty() || scores.size() == 0) {
      return Status.success();
    }
    long min = scores.min();
    long diff = scores.max() - min;
    for (int i = 0; i < scores.size(); i++) {
      long v = 0;
      if (diff > 0) {
        v = (long) (MAX_NODE_SCORE * ((double) (scores.get(i) - min) / diff));
      }
      scores.set(i, v);
    }
    return Status.success();
  }

  // ---- queueing hints

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return hints.eventsToRegister();
  }

  AffinityHints hints() {
    return hints;
  }
}
