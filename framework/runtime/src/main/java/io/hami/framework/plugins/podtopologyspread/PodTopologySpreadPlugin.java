package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Selector;
import io.hami.kube.PodPhases;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Spreads pods over topology domains by their {@code topologySpreadConstraints}, as
 * kube-scheduler's PodTopologySpread does: DoNotSchedule constraints are enforced in Filter (the
 * matching pods in the node's domain, plus the pod itself if it matches, may exceed the global
 * minimum by at most maxSkew), ScheduleAnyway ones are scored (fewer matching pods in the node's
 * domain rank higher). Pods without constraints of their own get the default constraints, whose
 * selector comes from the Services, ReplicationControllers, ReplicaSets and StatefulSets selecting
 * the pod.
 *
 * <p>Filter's verdict on a node depends on the pods of other nodes, so it gives no equivalence
 * class: pods with DoNotSchedule constraints are filtered afresh every cycle; pods without, for
 * which PreFilter skips Filter, keep the verdict reuse of the other plugins.
 */
public final class PodTopologySpreadPlugin
    implements PreFilterPlugin,
        PreFilterExtensions,
        FilterPlugin,
        FilterEquivalence,
        PreScorePlugin,
        ScorePlugin,
        ScoreExtensions,
        EnqueueExtensions {
  public static final String NAME = "PodTopologySpread";
  public static final String REASON = "node(s) didn't match pod topology spread constraints";
  public static final String REASON_MISSING_LABEL = REASON + " (missing required label)";

  private static final Status REJECTED = Status.unschedulable(REASON).withPlugin(NAME);
  private static final Status MISSING_LABEL =
      Status.unresolvable(REASON_MISSING_LABEL).withPlugin(NAME);
  static final StateKey<PreFilterState> PRE_FILTER =
      StateKey.of("PreFilter" + NAME, PreFilterState.class);
  private static final StateKey<PreScoreState> PRE_SCORE =
      StateKey.of("PreScore" + NAME, PreScoreState.class);
  private static final String SPEC_PATH = "spec.topologySpreadConstraints";
  private static final String ARGS_PATH = "defaultConstraints";

  private final FrameworkHandle handle;
  private final List<TopologySpreadConstraint> defaults;
  private final boolean systemDefaulted;
  private final boolean defaultsHaveHard;
  private final boolean defaultsHaveSoft;
  private final @Nullable DefaultSelectors defaultSelectors;

  PodTopologySpreadPlugin(PodTopologySpreadArgs args, FrameworkHandle handle) {
    this.handle = handle;
    this.defaults = args.effectiveDefaultConstraints();
    this.systemDefaulted = PodTopologySpreadArgs.SYSTEM_DEFAULTING.equals(args.defaultingType());
    this.defaultsHaveHard = hasAction(defaults, Constraint.DO_NOT_SCHEDULE);
    this.defaultsHaveSoft = hasAction(defaults, Constraint.SCHEDULE_ANYWAY);
    // The listers are asked for only when defaults can apply, so that only then are the four
    // kinds watched.
    this.defaultSelectors = defaults.isEmpty() ? null : new DefaultSelectors(handle);
  }

  /**
   * Creates the plugin.
   *
   * @throws IllegalArgumentException if {@code args} do not validate
   */
  public static Plugin create(PodTopologySpreadArgs args, FrameworkHandle handle) {
    FieldErrors errors = FieldErrors.at("");
    args.validate(errors);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", errors.messages()));
    }
    return new PodTopologySpreadPlugin(args, handle);
  }

  public static PluginRegistration<PodTopologySpreadArgs> registration() {
    return PluginRegistration.of(
        NAME,
        PodTopologySpreadArgs.class,
        PodTopologySpreadArgs.defaults(),
        PodTopologySpreadPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  private static boolean hasAction(List<TopologySpreadConstraint> cs, String action) {
    for (TopologySpreadConstraint c : cs) {
      if (action.equals(c.getWhenUnsatisfiable())) {
        return true;
      }
    }
    return false;
  }

  static String namespace(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    return ns == null ? "" : ns;
  }

  private static List<TopologySpreadConstraint> own(Pod pod) {
    List<TopologySpreadConstraint> cs =
        pod.getSpec() == null ? null : pod.getSpec().getTopologySpreadConstraints();
    return cs == null ? List.of() : cs;
  }

  /**
   * The pod's constraints of {@code action}: its own, or the defaults with the pod's default
   * selector when it has none (no defaults when nothing selects the pod).
   *
   * @throws IllegalArgumentException naming the field of a malformed constraint
   */
  List<Constraint> constraints(Pod pod, String action) {
    List<TopologySpreadConstraint> own = own(pod);
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (!own.isEmpty()) {
      return Constraint.filter(own, labels, action, SPEC_PATH);
    }
    boolean any = Constraint.DO_NOT_SCHEDULE.equals(action) ? defaultsHaveHard : defaultsHaveSoft;
    DefaultSelectors selectors = defaultSelectors;
    if (!any || selectors == null) {
      return List.of();
    }
    List<Constraint> cs = Constraint.filter(defaults, labels, action, ARGS_PATH);
    if (cs.isEmpty()) {
      return cs;
    }
    Selector selector = selectors.of(pod);
    if (selector.isEmpty()) {
      return List.of();
    }
    return cs.stream().map(c -> c.withSelector(selector)).toList();
  }

  // ---- PreFilter, Filter

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    if (own(pod).isEmpty() && !defaultsHaveHard) {
      return PreFilterResult.skip();
    }
    List<Constraint> cs;
    try {
      cs = constraints(pod, Constraint.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      return PreFilterResult.of(Status.error(e));
    }
    if (cs.isEmpty()) {
      return PreFilterResult.skip();
    }
    state.write(
        PRE_FILTER, PreFilterState.compute(cs, pod, snapshot.nodes(), handle.parallelizer()));
    return PreFilterResult.allNodes();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    PreFilterState s = state.get(PRE_FILTER);
    if (s == null) {
      return Status.error("no PreFilter state for " + NAME);
    }
    Map<String, String> labels = node.labels();
    for (int i = 0; i < s.constraints.size(); i++) {
      Constraint c = s.constraints.get(i);
      String domain = labels.get(c.topologyKey());
      if (domain == null) {
        return MISSING_LABEL;
      }
      int skew = s.count(i, domain) + s.selfMatch[i] - s.minMatch(i);
      if (skew > c.maxSkew()) {
        return REJECTED;
      }
    }
    return Status.success();
  }

  /** None: the verdict on a node depends on the matching pods of every other node. */
  @Override
  public @Nullable Object equivalenceClass(CycleState state, Pod pod) {
    return null;
  }

  @Override
  public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo node) {
    PreFilterState s = state.get(PRE_FILTER);
    if (s != null) {
      s.update(podToAdd.pod(), node.node(), 1);
    }
    return Status.success();
  }

  @Override
  public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo node) {
    PreFilterState s = state.get(PRE_FILTER);
    if (s != null) {
      s.update(podToRemove.pod(), node.node(), -1);
    }
    return Status.success();
  }

  // ---- PreScore, Score

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    if (own(pod).isEmpty() && !defaultsHaveSoft) {
      return Status.skip();
    }
    List<NodeInfo> all = handle.snapshot().nodes();
    if (feasibleNodes.isEmpty() || all.isEmpty()) {
      return Status.skip();
    }
    List<Constraint> cs;
    try {
      cs = constraints(pod, Constraint.SCHEDULE_ANYWAY);
    } catch (IllegalArgumentException e) {
      return Status.error(e);
    }
    if (cs.isEmpty()) {
      return Status.skip();
    }
    // Nodes lacking a topology key are scored 0 for the pod's own (or listed default)
    // constraints; with the system defaults a node without a zone is still spread by hostname.
    boolean requireAllKeys = !own(pod).isEmpty() || !systemDefaulted;
    state.write(
        PRE_SCORE,
        PreScoreState.compute(
            cs, pod, new PreScoreState.Nodes(feasibleNodes, all, requireAllKeys), handle));
    return Status.success();
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PreScoreState s = state.get(PRE_SCORE);
    return s == null ? 0 : s.score(node, namespace(pod));
  }

  /** Inverts the raw scores to 0..100: the node whose domains hold fewest matching pods wins. */
  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    PreScoreState s = state.get(PRE_SCORE);
    if (s == null) {
      return Status.success();
    }
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < scores.size(); i++) {
      if (s.ignored(scores.nodeName(i))) {
        continue;
      }
      min = Math.min(min, scores.get(i));
      max = Math.max(max, scores.get(i));
    }
    for (int i = 0; i < scores.size(); i++) {
      if (s.ignored(scores.nodeName(i))) {
        scores.set(i, 0);
      } else if (max == 0) {
        scores.set(i, MAX_NODE_SCORE);
      } else {
        scores.set(i, MAX_NODE_SCORE * (max + min - scores.get(i)) / max);
      }
    }
    return Status.success();
  }

  // ---- queueing hints

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD,
                ActionType.ADD,
                ActionType.UPDATE_POD_LABEL,
                ActionType.DELETE),
            this::afterPodChange),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.NODE,
                ActionType.ADD,
                ActionType.DELETE,
                ActionType.UPDATE_NODE_LABEL,
                ActionType.UPDATE_NODE_TAINT),
            this::afterNodeChange),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.UNSCHEDULED_POD,
                ActionType.UPDATE_POD_LABEL,
                ActionType.UPDATE_POD_SPEC)));
  }

  /**
   * Queues the pod when an assigned pod in its namespace that one of its hard constraints'
   * selectors matches comes or goes, or when a label change makes a selector match or stop
   * matching.
   */
  QueueingHint afterPodChange(Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    Pod before = oldObj instanceof Pod p ? p : null;
    Pod after = newObj instanceof Pod p ? p : null;
    if (after != null && PodPhases.isTerminal(after)) {
      // A pod that finished is reported as deleted, with its last state as the new object.
      after = null;
    }
    List<Constraint> cs;
    try {
      cs = constraints(pod, Constraint.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      return QueueingHint.QUEUE;
    }
    String ns = namespace(pod);
    if (before != null && after != null) {
      if (Objects.equals(before.getMetadata().getLabels(), after.getMetadata().getLabels())) {
        return QueueingHint.SKIP;
      }
      for (Constraint c : cs) {
        if (NodeCounts.matches(before, c.selector(), ns)
            != NodeCounts.matches(after, c.selector(), ns)) {
          return QueueingHint.QUEUE;
        }
      }
      return QueueingHint.SKIP;
    }
    Pod changed = after != null ? after : before;
    if (changed == null) {
      return QueueingHint.SKIP;
    }
    for (Constraint c : cs) {
      if (NodeCounts.matches(changed, c.selector(), ns)) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.SKIP;
  }

  /**
   * Queues the pod when a node holding every topology key of its hard constraints comes or goes,
   * gains or loses one of those keys, changes one of their values, or changes its taints.
   */
  QueueingHint afterNodeChange(
      Pod pod, @Nullable HasMetadata oldObj, @Nullable HasMetadata newObj) {
    Node before = oldObj instanceof Node n ? n : null;
    Node after = newObj instanceof Node n ? n : null;
    List<Constraint> cs;
    try {
      cs = constraints(pod, Constraint.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      return QueueingHint.QUEUE;
    }
    boolean beforeMatches = before != null && Constraint.hasAllKeys(labels(before), cs);
    boolean afterMatches = after != null && Constraint.hasAllKeys(labels(after), cs);
    if (before != null && after != null) {
      if (beforeMatches != afterMatches) {
        return QueueingHint.QUEUE;
      }
      if (afterMatches
          && (keyValuesChanged(labels(before), labels(after), cs)
              || !Objects.equals(taints(before), taints(after)))) {
        return QueueingHint.QUEUE;
      }
      return QueueingHint.SKIP;
    }
    return (after != null ? afterMatches : beforeMatches) ? QueueingHint.QUEUE : QueueingHint.SKIP;
  }

  private static Map<String, String> labels(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  private static @Nullable Object taints(Node n) {
    if (n.getSpec() == null || n.getSpec().getTaints() == null) {
      return List.of();
    }
    return n.getSpec().getTaints();
  }

  private static boolean keyValuesChanged(
      Map<String, String> a, Map<String, String> b, List<Constraint> cs) {
    for (Constraint c : cs) {
      if (!Objects.equals(a.get(c.topologyKey()), b.get(c.topologyKey()))) {
        return true;
      }
    }
    return false;
  }
}
