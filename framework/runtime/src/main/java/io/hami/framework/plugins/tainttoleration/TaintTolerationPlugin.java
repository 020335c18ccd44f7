package io.hami.framework.plugins.tainttoleration;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
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
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Rejections;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.Tolerations;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Filters out nodes with a NoSchedule or NoExecute taint the pod does not tolerate, and prefers
 * nodes with fewer untolerated PreferNoSchedule taints.
 */
public final class TaintTolerationPlugin
    implements FilterPlugin,
        FilterEquivalence,
        PreScorePlugin,
        ScorePlugin,
        ScoreExtensions,
        EnqueueExtensions {
  public static final String NAME = "TaintToleration";
  private static final StateKey<PreScoreState> KEY =
      StateKey.of("PreScore" + NAME, PreScoreState.class);

  private record PreScoreState(List<Toleration> preferNoSchedule) implements StateData {}

  public static Plugin create(FrameworkHandle handle) {
    return new TaintTolerationPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, TaintTolerationPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    if (node.taints().isEmpty()) {
      return Status.success();
    }
    Taint t = firstUntolerated(node.taints(), Tolerations.of(pod));
    if (t == null) {
      return Status.success();
    }
    String reason =
        "node(s) had untolerated taint {" + t.getKey() + ": " + nullToEmpty(t.getValue()) + "}";
    return rejections.of(reason, Status::unresolvable);
  }

  // One rejection per taint across pods (see Rejections).
  private final Rejections<String> rejections = new Rejections<>();

  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    return Tolerations.of(pod);
  }

  private static @Nullable Taint firstUntolerated(Node node, List<Toleration> tolerations) {
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    return taints == null ? null : firstUntolerated(taints, tolerations);
  }

  private static @Nullable Taint firstUntolerated(
      List<Taint> taints, List<Toleration> tolerations) {
    for (Taint t : taints) {
      String e = t.getEffect();
      if (("NoSchedule".equals(e) || "NoExecute".equals(e))
          && !Tolerations.anyTolerates(tolerations, t)) {
        return t;
      }
    }
    return null;
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    List<Toleration> prefer = new ArrayList<>();
    for (Toleration t : Tolerations.of(pod)) {
      if (t.getEffect() == null
          || t.getEffect().isEmpty()
          || "PreferNoSchedule".equals(t.getEffect())) {
        prefer.add(t);
      }
    }
    state.write(KEY, new PreScoreState(prefer));
    return Status.success();
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    List<Taint> taints = node.taints();
    if (taints.isEmpty()) {
      return 0;
    }
    List<Toleration> prefer = state.require(KEY).preferNoSchedule();
    long count = 0;
    for (Taint t : taints) {
      if ("PreferNoSchedule".equals(t.getEffect()) && !Tolerations.anyTolerates(prefer, t)) {
        count++;
      }
    }
    return count;
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    scores.normalize(MAX_NODE_SCORE, true);
    return Status.success();
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_TAINT),
            (pod, oldObj, newObj) ->
                newObj instanceof Node n && firstUntolerated(n, Tolerations.of(pod)) == null
                    ? QueueingHint.QUEUE
                    : QueueingHint.SKIP),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC)));
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
