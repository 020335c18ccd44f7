package io.hami.plugins.placement;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.NodeScores;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScoreExtensions;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import io.hami.plugins.fgd.HamiShape;
import io.hami.plugins.vgpu.DeviceChoice;
import io.hami.plugins.vgpu.DeviceUsageIndex;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.UsageOverlay;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Scores nodes by one placement policy of the FGD paper over HAMi's device usage, and asks the
 * {@code vgpu} plugin for the GPUs the policy chose: Reserve writes {@link
 * VgpuPlugin#PREFERRED_DEVICES}, so this plugin must come before {@code vgpu} in Reserve.
 *
 * <p>Each node is scored on a compact copy of its state ({@link GpuNode}), kept on the node's
 * {@link NodeInfo} (which is replaced when the node or its device usage changes) and rebuilt when
 * the workloads or the plugin scoring it change (plugins of several profiles share the slot); the
 * policy's evaluation of each pod shape is kept per node ({@link ShapeEvaluations}). The devices
 * are those the cycle sees, as {@code vgpu} reads them ({@link UsageOverlay#view}): a node the
 * cycle state's overlay changes is scored on a copy of its own, kept nowhere. The policy's choice
 * of GPUs per node is kept in the pod's cycle state between Score and Reserve. Score runs
 * concurrently for different nodes; everything it shares is immutable or concurrent.
 */
public final class PlacementPlugin
    implements PreScorePlugin, ScorePlugin, ScoreExtensions, ReservePlugin {

  /** Name of the baselines' plugin. */
  public static final String NAME = "placement";

  private final String name;
  private final PlacementPolicy policy;
  private final DeviceUsageIndex index;
  private final FrameworkHandle handle;
  private final Supplier<CardWorkloads> workloads;
  private final @Nullable ShapeListener shapes;
  private final StateKey<Choices> key;
  private final ThreadLocal<int[]> scratch =
      ThreadLocal.withInitial(() -> new int[NodeTable.STRIDE]);
  private final SplittableRandom random;

  /** Told of the shape of every pod scored (the FGD plugin learns its target workload so). */
  @FunctionalInterface
  public interface ShapeListener {
    void seen(HamiShape shape);
  }

  /**
   * What a policy scores against: the target workload per kind of card, and who learns it.
   *
   * @param current the current target workload per kind of card (read once per pod)
   * @param shapes told of each pod's shape before scoring, or null
   */
  public record Workloads(Supplier<CardWorkloads> current, @Nullable ShapeListener shapes) {

    /** No target workload (the baselines). */
    public static Workloads none() {
      return new Workloads(CardWorkloads::none, null);
    }
  }

  /**
   * @param name the plugin's registered name
   * @param policy the policy scoring nodes
   * @param workloads what the policy scores against
   * @param seed seed of Random-fit's draws
   */
  public PlacementPlugin(
      String name,
      PlacementPolicy policy,
      FrameworkHandle handle,
      DeviceUsageIndex index,
      Workloads workloads,
      long seed) {
    this.name = name;
    this.policy = policy;
    this.handle = handle;
    this.index = index;
    this.workloads = workloads.current();
    this.shapes = workloads.shapes();
    this.key = StateKey.of("PreScore" + name, Choices.class);
    this.random = new SplittableRandom(seed);
  }

  public static PlacementPlugin create(
      PlacementArgs args, FrameworkHandle handle, SharedGpuState shared) {
    PaperPolicy p =
        PaperPolicy.byName(args.policy())
            .orElseThrow(
                () -> new IllegalArgumentException("args.policy: unknown policy " + args.policy()));
    return new PlacementPlugin(
        NAME, p, handle, shared.index(handle), Workloads.none(), args.seed());
  }

  public static PluginRegistration<PlacementArgs> registration(SharedGpuState shared) {
    return PluginRegistration.of(
        NAME,
        PlacementArgs.class,
        PlacementArgs.DEFAULTS,
        (args, handle) -> create(args, handle, shared));
  }

  @Override
  public String name() {
    return name;
  }

  /** The pod's shape and the target workloads it is scored against. */
  record Choices(PodShapes.PodShape shape, CardWorkloads workloads, ShapeEvaluations evaluations)
      implements StateData {}

  /** Shapes whose evaluations are kept before all are dropped (endless distinct requests). */
  private static final int MAX_SHAPES = 4096;

  private final Map<HamiShape, ShapeEvaluations> byShape = new ConcurrentHashMap<>();
  private final Map<String, Integer> slots = new ConcurrentHashMap<>();
  private final AtomicInteger nextSlot = new AtomicInteger();

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    return choices(state, pod) == null ? Status.skip() : Status.success();
  }

  // PreScore does not run when a single node is feasible; Reserve then reads the shape itself.
  private @Nullable Choices choices(CycleState state, Pod pod) {
    Choices c = state.get(key);
    if (c != null) {
      return c;
    }
    PodShapes.PodShape shape = PodShapes.of(pod, handle.podRequests(pod));
    if (shape == null) {
      return null;
    }
    if (shapes != null) {
      shapes.seen(shape.shape());
    }
    if (byShape.size() >= MAX_SHAPES) {
      byShape.clear();
    }
    ShapeEvaluations evaluations =
        byShape.computeIfAbsent(shape.shape(), s -> new ShapeEvaluations());
    evaluations.ensure(nextSlot.get());
    c = new Choices(shape, workloads.get(), evaluations);
    state.write(key, c);
    return c;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    Choices c = state.get(key);
    if (c == null) {
      return 0;
    }
    long e = evaluate(c, gpuNode(state, c, node), node);
    return e == NO_FIT
        ? 0
        : Math.max(MIN_NODE_SCORE, Math.min(MAX_NODE_SCORE, PlacementPolicy.score(e)));
  }

  private static final long NO_FIT = Long.MIN_VALUE;

  private static final NodeLocal<GpuNode> COMPACT = NodeLocal.create("placement: compact node");

  /**
   * The node's compact form over the devices the cycle sees ({@link UsageOverlay#view}), the same
   * view {@code vgpu} reads. Kept on the NodeInfo, and rebuilt only when the node, its devices or
   * the workloads changed, while the cycle sees the index's pinned view; built for this read alone
   * when the state's overlay changes the node (the pod's earlier attempt left out, a preemption dry
   * run's victims).
   */
  private GpuNode gpuNode(CycleState state, Choices c, NodeInfo node) {
    NodeDevices changed = UsageOverlay.changedView(state, index, node);
    if (changed != null) {
      return GpuNode.of(this, slot(node), node, changed, c.workloads());
    }
    GpuNode g = node.local(COMPACT);
    if (g == null || !g.current(this, c.workloads())) {
      g = GpuNode.of(this, slot(node), node, index.node(node), c.workloads());
      node.setLocal(COMPACT, g);
    }
    return g;
  }

  private int slot(NodeInfo node) {
    return slots.computeIfAbsent(node.name(), n -> nextSlot.getAndIncrement());
  }

  /**
   * The policy's evaluation of the pod on the node (score and GPUs), or NO_FIT; kept for the node's
   * compact form when that is the one kept on its NodeInfo.
   */
  private long evaluate(Choices c, GpuNode g, NodeInfo node) {
    long e = c.evaluations().get(g);
    if (e != ShapeEvaluations.NOT_KEPT) {
      return e;
    }
    Task task = task(c, g);
    e =
        g.table.fitsIgnoringMemory(0, task)
            ? policy.evaluate(g.table, 0, task, scratch.get())
            : NO_FIT;
    if (node.local(COMPACT) == g) {
      c.evaluations().put(g, e);
    }
    return e;
  }

  /** The pod as a task on the node's cards (its share depends on their memory and cores). */
  private static Task task(Choices c, GpuNode g) {
    HamiShape s = c.shape().shape();
    int d = s.shareOn(g.devmem, g.devcore);
    return new Task(s.cpuMilli(), 0, d, d == 0 ? 0 : s.gpus(), 0, 0);
  }

  @Override
  public Status normalizeScore(CycleState state, Pod pod, NodeScores scores) {
    if (policy == PaperPolicy.RANDOM && scores.size() > 0) {
      int pick;
      synchronized (random) {
        pick = random.nextInt(scores.size());
      }
      for (int i = 0; i < scores.size(); i++) {
        scores.set(i, i == pick ? MAX_NODE_SCORE : MIN_NODE_SCORE);
      }
    }
    return Status.success();
  }

  @Override
  public Status reserve(CycleState state, Pod pod, String nodeName) {
    Choices c = choices(state, pod);
    if (c == null || c.shape().gpuContainer() < 0) {
      return Status.success();
    }
    // The cycle's snapshot and state still show the node as Score saw it, so this is Score's
    // evaluation (remembered on the node's compact form, or made again on the same view).
    NodeInfo node = handle.snapshot().get(nodeName);
    if (node == null) {
      return Status.success();
    }
    GpuNode g = gpuNode(state, c, node);
    long e = evaluate(c, g, node);
    if (e == NO_FIT) {
      return Status.success();
    }
    int mask = PlacementPolicy.gpuMask(e);
    Task task = task(c, g);
    if (policy == PaperPolicy.RANDOM && task.isSharing()) {
      // Random-fit draws the card among those that fit.
      synchronized (random) {
        mask = PaperPolicy.randomGpu(g.table, 0, task, random::nextInt);
      }
    }
    if (mask == 0) {
      return Status.success();
    }
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < g.ids.length; i++) {
      if ((mask & (1 << i)) != 0) {
        ids.add(g.ids[i]);
      }
    }
    List<List<String>> containers = new ArrayList<>();
    for (int i = 0; i < c.shape().containers(); i++) {
      containers.add(i == c.shape().gpuContainer() ? ids : List.of());
    }
    state.write(VgpuPlugin.PREFERRED_DEVICES, DeviceChoice.of(nodeName, containers));
    return Status.success();
  }

  @Override
  public void unreserve(CycleState state, Pod pod, String nodeName) {
    state.delete(VgpuPlugin.PREFERRED_DEVICES);
  }
}
