package io.hami.framework.testing;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Runs plugins through PreFilter, Filter, PreScore, Score and NormalizeScore over a snapshot on the
 * calling thread, with no queue, cache or threads; also Reserve/Unreserve, Permit and PreBind for a
 * chosen node. Plugin exceptions propagate, so tests see them directly.
 *
 * <p>Ties between equal total scores go to the node that comes first in the snapshot.
 */
public final class PluginHarness {
  private final List<Plugin> plugins = new ArrayList<>();
  private final Map<String, Integer> weights = new LinkedHashMap<>();
  private Snapshot snapshot = Snapshot.of(List.of());

  private PluginHarness() {}

  public static PluginHarness create() {
    return new PluginHarness();
  }

  /** Adds a plugin with score weight 1. */
  public PluginHarness plugin(Plugin p) {
    return plugin(p, 1);
  }

  public PluginHarness plugin(Plugin p, int scoreWeight) {
    plugins.add(requireNonNull(p));
    weights.put(p.name(), scoreWeight);
    return this;
  }

  public PluginHarness snapshot(Snapshot s) {
    this.snapshot = s;
    return this;
  }

  public PluginHarness nodes(NodeInfo... nodes) {
    return snapshot(Snapshot.of(List.of(nodes)));
  }

  /**
   * The outcome of one run.
   *
   * @param state the cycle state after the run
   * @param preFilterStatus the first non-success PreFilter status, or success
   * @param filterStatuses the rejection (or error) per rejected node
   * @param feasible the nodes that passed Filter, in snapshot order
   * @param scores the weighted total per feasible node
   * @param selected the best feasible node, or null
   */
  public record Result(
      CycleState state,
      Status preFilterStatus,
      Map<String, Status> filterStatuses,
      List<String> feasible,
      Map<String, Long> scores,
      @Nullable String selected) {}

  /** Runs the filter and score points for {@code pod}. */
  public Result run(Pod pod) {
    CycleState state = new CycleState();
    Set<String> skipFilter = new HashSet<>();
    PreFilterRun pre = preFilter(state, pod, skipFilter);
    if (!pre.status().isSuccess()) {
      return new Result(state, pre.status(), Map.of(), List.of(), Map.of(), null);
    }
    Map<String, Status> rejected = new LinkedHashMap<>();
    List<NodeInfo> feasible =
        filter(state, pod, new FilterRun(pre.allowed(), skipFilter), rejected);
    Map<String, Long> totals = score(state, pod, feasible);
    String best = null;
    long bestScore = Long.MIN_VALUE;
    for (NodeInfo n : feasible) {
      long s = totals.getOrDefault(n.name(), 0L);
      if (s > bestScore) {
        best = n.name();
        bestScore = s;
      }
    }
    return new Result(
        state,
        Status.success(),
        rejected,
        feasible.stream().map(NodeInfo::name).toList(),
        totals,
        best);
  }

  /** PreFilter's verdict and the nodes it allows (null: all). */
  private record PreFilterRun(Status status, @Nullable Set<String> allowed) {}

  /** What Filter runs with: the nodes PreFilter allows (null: all) and the plugins to skip. */
  private record FilterRun(@Nullable Set<String> allowed, Set<String> skip) {}

  private PreFilterRun preFilter(CycleState state, Pod pod, Set<String> skipFilter) {
    Set<String> allowed = null;
    for (Plugin p : plugins) {
      if (p instanceof PreFilterPlugin preFilter) {
        PreFilterResult r = preFilter.preFilter(state, pod, snapshot);
        Status s = r.status().withPlugin(p.name());
        if (s.isSkip()) {
          skipFilter.add(p.name());
          continue;
        }
        if (!s.isSuccess()) {
          return new PreFilterRun(s, null);
        }
        if (r.nodeNames() != null) {
          if (allowed == null) {
            allowed = new HashSet<>(r.nodeNames());
          } else {
            allowed.retainAll(r.nodeNames());
          }
        }
      }
    }
    return new PreFilterRun(Status.success(), allowed);
  }

  /** Returns the feasible nodes in snapshot order; puts each rejection into {@code rejected}. */
  private List<NodeInfo> filter(
      CycleState state, Pod pod, FilterRun run, Map<String, Status> rejected) {
    List<NodeInfo> feasible = new ArrayList<>();
    Set<String> allowed = run.allowed();
    for (NodeInfo n : snapshot.nodes()) {
      if (allowed != null && !allowed.contains(n.name())) {
        rejected.put(n.name(), Status.unresolvable("node(s) didn't satisfy plugin(s) PreFilter"));
        continue;
      }
      Status s = Status.success();
      for (Plugin p : plugins) {
        if (p instanceof FilterPlugin filter && !run.skip().contains(p.name())) {
          s = filter.filter(state, pod, n).withPlugin(p.name());
          if (!s.isSuccess()) {
            break;
          }
        }
      }
      if (s.isSuccess()) {
        feasible.add(n);
      } else {
        rejected.put(n.name(), s);
      }
    }
    return feasible;
  }

  /** PreScore, Score and NormalizeScore: the weighted total per feasible node. */
  private Map<String, Long> score(CycleState state, Pod pod, List<NodeInfo> feasible) {
    Map<String, Long> totals = new LinkedHashMap<>();
    feasible.forEach(n -> totals.put(n.name(), 0L));
    Set<String> skipScore = new HashSet<>();
    for (Plugin p : plugins) {
      if (p instanceof PreScorePlugin preScore && !feasible.isEmpty()) {
        Status s = preScore.preScore(state, pod, feasible);
        if (s.isSkip()) {
          skipScore.add(p.name());
        } else if (!s.isSuccess()) {
          throw new IllegalStateException("PreScore of " + p.name() + " failed: " + s);
        }
      }
    }
    for (Plugin p : plugins) {
      if (!(p instanceof ScorePlugin scorer)
          || skipScore.contains(p.name())
          || feasible.isEmpty()) {
        continue;
      }
      long[] raw = new long[feasible.size()];
      for (int i = 0; i < raw.length; i++) {
        raw[i] = scorer.score(state, pod, feasible.get(i));
      }
      NodeScores scores = new NodeScores(feasible, raw);
      if (p instanceof ScoreExtensions extensions) {
        Status s = extensions.normalizeScore(state, pod, scores);
        if (!s.isSuccess()) {
          throw new IllegalStateException("NormalizeScore of " + p.name() + " failed: " + s);
        }
      }
      int w = weights.getOrDefault(p.name(), 1);
      for (int i = 0; i < scores.size(); i++) {
        totals.merge(scores.nodeName(i), scores.get(i) * w, Long::sum);
      }
    }
    return totals;
  }

  /** Runs every Reserve plugin; on the first failure unreserves all of them in reverse order. */
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    for (Plugin p : plugins) {
      if (p instanceof ReservePlugin reserve) {
        Status s = reserve.reserve(state, pod, nodeName).withPlugin(p.name());
        if (!s.isSuccess()) {
          unreserve(state, pod, nodeName);
          return s;
        }
      }
    }
    return Status.success();
  }

  /** Runs every Reserve plugin's Unreserve in reverse order. */
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    for (int i = plugins.size() - 1; i >= 0; i--) {
      if (plugins.get(i) instanceof ReservePlugin) {
        ((ReservePlugin) plugins.get(i)).unreserve(state, pod, nodeName);
      }
    }
  }

  /** Runs every Permit plugin and returns the first non-allow result, or allow. */
  public PermitResult permit(CycleState state, Pod pod, String nodeName) {
    for (Plugin p : plugins) {
      if (p instanceof PermitPlugin permit) {
        PermitResult r = permit.permit(state, pod, nodeName);
        if (!r.status().isSuccess()) {
          return r;
        }
      }
    }
    return PermitResult.allow();
  }

  /** Runs every PreBind plugin and returns the first failure, or success. */
  public Status preBind(CycleState state, Pod pod, String nodeName) {
    for (Plugin p : plugins) {
      if (p instanceof PreBindPlugin preBind) {
        Status s = preBind.preBind(state, pod, nodeName).withPlugin(p.name());
        if (!s.isSuccess() && !s.isSkip()) {
          return s;
        }
      }
    }
    return Status.success();
  }
}
