package io.hami.framework.plugins.noderesources;

import io.fabric8.kubernetes.api.model.Pod;
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
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.Rejections;
import io.hami.framework.api.Resources;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that a node has room for the pod's requests (cpu, memory, ephemeral-storage, the pod count
 * and extended resources, with init containers and overhead counted as Kubernetes does), skipping
 * ignored resources; scores nodes by LeastAllocated or MostAllocated.
 */
public final class NodeResourcesFitPlugin
    implements PreFilterPlugin,
        FilterPlugin,
        FilterEquivalence,
        PreScorePlugin,
        ScorePlugin,
        EnqueueExtensions {
  public static final String NAME = "NodeResourcesFit";
  private static final StateKey<FitState> PRE_FILTER =
      StateKey.of("PreFilter" + NAME, FitState.class);
  private static final StateKey<ScoreState> PRE_SCORE =
      StateKey.of("PreScore" + NAME, ScoreState.class);

  /**
   * The pod's requests, read once per cycle, and its rejections by set of reasons (bit i of the
   * index: reason i of {@link #reason}), built on first use and shared by every node refused so.
   */
  private static final class FitState implements StateData {
    private static final int FIXED = 4;
    final Resources request;
    final String[] scalars;
    final long[] scalarAmounts;
    final Status[] rejections;
    final Rejections<List<String>> shared;

    FitState(
        Resources request,
        List<String> scalars,
        List<Long> amounts,
        Rejections<List<String>> shared) {
      this.request = request;
      this.shared = shared;
      this.scalars = scalars.toArray(String[]::new);
      this.scalarAmounts = amounts.stream().mapToLong(Long::longValue).toArray();
      // More than 16 extended resources is unheard of; beyond that rejections are not kept.
      this.rejections =
          new Status[this.scalars.length <= 16 ? 1 << (FIXED + this.scalars.length) : 0];
    }

    String reason(int i) {
      return switch (i) {
        case 0 -> "Too many pods";
        case 1 -> "Insufficient cpu";
        case 2 -> "Insufficient memory";
        case 3 -> "Insufficient ephemeral-storage";
        default -> "Insufficient " + scalars[i - FIXED];
      };
    }

    Status rejection(long bits) {
      if (bits == 0) {
        return Status.unschedulable().withPlugin(NAME);
      }
      Status s = bits > 0 && bits < rejections.length ? rejections[(int) bits] : null;
      if (s == null) {
        List<String> reasons = new ArrayList<>(Long.bitCount(bits));
        for (int i = 0; i < Long.SIZE; i++) {
          if ((bits & (1L << i)) != 0) {
            reasons.add(reason(i));
          }
        }
        s =
            shared.of(
                List.copyOf(reasons),
                r -> Status.unschedulable(r.toArray(String[]::new)).withPlugin(NAME));
        if (bits > 0 && bits < rejections.length) {
          rejections[(int) bits] = s;
        }
      }
      return s;
    }
  }

  private record ScoreState(Resources nonZeroRequest) implements StateData {}

  // One rejection per list of reasons across pods (see Rejections).
  private final Rejections<List<String>> sharedRejections = new Rejections<>();

  private final FrameworkHandle handle;
  private final Set<String> ignored;
  private final List<String> ignoredGroups;
  private final boolean mostAllocated;
  private final String[] scoreResources;
  private final long[] scoreWeights;
  private final long weightSum;

  NodeResourcesFitPlugin(NodeResourcesFitArgs args, FrameworkHandle handle) {
    this.handle = handle;
    this.ignored = new HashSet<>(args.ignoredResources());
    this.ignoredGroups = args.ignoredResourceGroups();
    this.mostAllocated =
        NodeResourcesFitArgs.ScoringStrategy.MOST_ALLOCATED.equals(args.scoringStrategy().type());
    List<NodeResourcesFitArgs.ResourceWeight> rs = args.scoringStrategy().resources();
    this.scoreResources = new String[rs.size()];
    this.scoreWeights = new long[rs.size()];
    long sum = 0;
    for (int i = 0; i < rs.size(); i++) {
      scoreResources[i] = rs.get(i).name();
      scoreWeights[i] = rs.get(i).weight();
      sum += scoreWeights[i];
    }
    this.weightSum = sum;
  }

  public static Plugin create(NodeResourcesFitArgs args, FrameworkHandle handle) {
    return new NodeResourcesFitPlugin(args, handle);
  }

  public static PluginRegistration<NodeResourcesFitArgs> registration() {
    return PluginRegistration.of(
        NAME,
        NodeResourcesFitArgs.class,
        NodeResourcesFitArgs.defaults(),
        NodeResourcesFitPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  boolean isIgnored(String resource) {
    if (ignored.contains(resource)) {
      return true;
    }
    int slash = resource.indexOf('/');
    return slash > 0 && ignoredGroups.contains(resource.substring(0, slash));
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, Snapshot snapshot) {
    state.write(PRE_FILTER, fitState(pod));
    return PreFilterResult.allNodes();
  }

  private FitState fitState(Pod pod) {
    Resources req = handle.podRequests(pod);
    List<String> names = new ArrayList<>();
    List<Long> amounts = new ArrayList<>();
    for (Map.Entry<String, Long> e : req.scalars().entrySet()) {
      if (e.getValue() > 0 && !isIgnored(e.getKey())) {
        names.add(e.getKey());
        amounts.add(e.getValue());
      }
    }
    return new FitState(req, List.copyOf(names), List.copyOf(amounts), sharedRejections);
  }

  /** The pod's requests: Filter reads nothing else of the pod. */
  @Override
  public Object equivalenceClass(CycleState state, Pod pod) {
    FitState s = state.get(PRE_FILTER);
    return s != null ? s.request : handle.podRequests(pod);
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo node) {
    FitState s = state.get(PRE_FILTER);
    if (s == null) {
      s = fitState(pod);
    }
    Resources req = s.request;
    Resources alloc = node.allocatable();
    Resources used = node.requested();
    long bits = 0;
    if (node.pods().size() + 1 > alloc.pods()) {
      bits |= 1;
    }
    if (req.milliCpu() > 0 && req.milliCpu() > alloc.milliCpu() - used.milliCpu()) {
      bits |= 2;
    }
    if (req.memory() > 0 && req.memory() > alloc.memory() - used.memory()) {
      bits |= 4;
    }
    if (req.ephemeralStorage() > 0
        && req.ephemeralStorage() > alloc.ephemeralStorage() - used.ephemeralStorage()) {
      bits |= 8;
    }
    String[] scalars = s.scalars;
    List<String> beyond = null;
    for (int i = 0; i < scalars.length; i++) {
      String name = scalars[i];
      if (s.scalarAmounts[i] > alloc.get(name) - used.get(name)) {
        if (FitState.FIXED + i < Long.SIZE) {
          bits |= 1L << (FitState.FIXED + i);
        } else {
          beyond = beyond == null ? new ArrayList<>() : beyond;
          beyond.add("Insufficient " + name);
        }
      }
    }
    if (beyond != null) {
      List<String> reasons = new ArrayList<>(s.rejection(bits == 0 ? 0 : bits).reasons());
      reasons.addAll(beyond);
      return Status.unschedulable(reasons.toArray(String[]::new));
    }
    return bits == 0 ? Status.success() : s.rejection(bits);
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    state.write(PRE_SCORE, new ScoreState(Resources.nonZeroForPod(pod)));
    return Status.success();
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    ScoreState s = state.get(PRE_SCORE);
    Resources podReq = s != null ? s.nonZeroRequest() : Resources.nonZeroForPod(pod);
    Resources alloc = node.allocatable();
    Resources used = node.nonZeroRequested();
    long total = 0;
    for (int i = 0; i < scoreResources.length; i++) {
      String r = scoreResources[i];
      long score = resourceScore(mostAllocated, alloc.get(r), used.get(r) + podReq.get(r));
      total += score * scoreWeights[i];
    }
    return weightSum == 0 ? 0 : total / weightSum;
  }

  /**
   * One resource's score in [0, 100] under LeastAllocated or MostAllocated, as kube-scheduler
   * computes it with integer division; {@code requested} includes the pod's own (non-zero) request.
   * Public so that replays outside the scheduler rank nodes alike.
   */
  public static long resourceScore(boolean mostAllocated, long capacity, long requested) {
    if (capacity <= 0) {
      return 0;
    }
    if (requested > capacity) {
      return mostAllocated ? MAX_NODE_SCORE : 0;
    }
    return mostAllocated
        ? requested * MAX_NODE_SCORE / capacity
        : (capacity - requested) * MAX_NODE_SCORE / capacity;
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.NODE, ActionType.ADD, ActionType.UPDATE_NODE_ALLOCATABLE)),
        ClusterEventWithHint.of(
            ClusterEvent.of(
                EventResource.ASSIGNED_POD, ActionType.DELETE, ActionType.UPDATE_POD_SCALE_DOWN)),
        ClusterEventWithHint.of(
            ClusterEvent.of(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SPEC)));
  }
}
