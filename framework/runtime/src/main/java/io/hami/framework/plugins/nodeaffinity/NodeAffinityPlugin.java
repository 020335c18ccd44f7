package io.hami.framework.plugins.nodeaffinity;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EnqueueExtensions;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * Enforces {@code nodeSelector} and required node affinity, and scores preferred node affinity (the
 * sum of the weights of the matching preferred terms, normalized to 0..100).
 */
public final class NodeAffinityPlugin
    implements PreFilterPlugin,
        FilterPlugin,
        FilterEquivalence,
        PreScorePlugin,
        ScorePlugin,
        ScoreExtensions,
        EnqueueExtensions {
  public static final String NAME = "NodeAffinity";
  public static final String REASON = "node(s) didn't match Pod's node affinity/selector";
  private static final StateKey<PreFilterState> PRE_FILTER =
      StateKey.of("PreFilter" + NAME, PreFilterState.class);
  private static final StateKey<PreScoreState> PRE_SCORE =
      StateKey.of("PreScore" + NAME, PreScoreState.class);

  private record PreFilterState(RequiredNodeAffinity required) implements StateData {}

  private record PreScoreState(List<PreferredSchedulingTerm> preferred) implements StateData {}

  public static Plugin create(FrameworkHandle handle) {
    return new NodeAffinityPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, NodeAffinityPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    RequiredNodeAffinity required = RequiredNodeAffinity.of(pod);
    if (required.isEmpty()) {
      return PreFilterResult.skip();
    }
    state.write(PRE_FILTER, new PreFilterState(required));
    List<String> names = required.nodeNames();
    if (names != null) {
      if (names.isEmpty()) {
        return PreFilterResult.of(Status.unresolvable(REASON));
      }
      return PreFilterResult.onlyNodes(new HashSet<>(names));
    }
    return PreFilterResult.allNodes();
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    PreFilterState s = state.get(PRE_FILTER);
    RequiredNodeAffinity required = s != null ? s.required() : RequiredNodeAffinity.of(pod);
    return required.matches(node.name(), node.labels())
        ? Status.success()
        : Status.unresolvable(REASON);
  }

  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    PreFilterState s = state.get(PRE_FILTER);
    return s != null ? s.required() : RequiredNodeAffinity.of(pod);
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    List<PreferredSchedulingTerm> preferred = preferred(pod);
    if (preferred.isEmpty()) {
      return Status.skip();
    }
    state.write(PRE_SCORE, new PreScoreState(preferred));
    return Status.success();
  }

  private static List<PreferredSchedulingTerm> preferred(Pod pod) {
    if (pod.getSpec() == null
        || pod.getSpec().getAffinity() == null
        || pod.getSpec().getAffinity().getNodeAffinity() == null) {
      return List.of();
    }
    List<PreferredSchedulingTerm> p =
        pod.getSpec()
            .getAffinity()
            .getNodeAffinity()
            .getPreferredDuringSchedulingIgnoredDuringExecution();
    return p == null ? List.of() : p;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PreScoreState s = state.get(PRE_SCORE);
    List<PreferredSchedulingTerm> preferred = s != null ? s.preferred() : preferred(pod);
    Map<String, String> labels = node.labels();
    long sum = 0;
    for (PreferredSchedulingTerm t : preferred) {
      if (t.getWeight() == null || t.getWeight() == 0 || t.getPreference() == null) {
        continue;
      }
      if (RequiredNodeAffinity.termMatches(t.getPreference(), node.name(), labels)) {
        sum += t.getWeight();
      }
    }
    return sum;
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    scores.normalize(MAX_NODE_SCORE, false);
    return Status.success();
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_LABEL),
            (pod, oldObj, newObj) ->
                newObj instanceof Node n && RequiredNodeAffinity.of(pod).matches(n)
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC)));
  }
}
