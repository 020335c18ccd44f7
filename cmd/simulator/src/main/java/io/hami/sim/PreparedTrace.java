package io.hami.sim;

import io.hami.plugins.fgd.Fragmentation;
import io.hami.plugins.fgd.HamiShape;
import io.hami.plugins.fgd.HamiWorkload;
import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.fgd.TaskShape;
import io.hami.plugins.placement.NodeTable;
import io.hami.plugins.placement.Task;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A trace made ready for replays: nodes and pods sorted by name, GPU models numbered, each pod
 * turned into a {@link Task} with a dense shape id, and the target workload computed from the
 * original pods. Immutable and shared by the replays of every policy and seed.
 */
public final class PreparedTrace {

  private final Trace trace;
  private final List<TraceNode> nodes;
  private final List<TracePod> pods;
  private final Task[] tasks;
  private final long[] modelBit;
  private final int shapeCount;
  private final TargetWorkload workload;
  private final long capacity;
  private volatile io.hami.plugins.fgd.@org.jspecify.annotations.Nullable HamiWorkload hamiWorkload;

  private PreparedTrace(Trace trace, double coverage) {
    this.trace = trace;
    nodes = trace.nodes().stream().sorted(Comparator.comparing(TraceNode::name)).toList();
    pods = trace.pods().stream().sorted(Comparator.comparing(TracePod::name)).toList();
    Map<String, Integer> models = new LinkedHashMap<>();
    for (TraceNode n : nodes) {
      if (n.gpus() > 0) {
        modelId(models, n.model());
      }
    }
    modelBit = new long[nodes.size()];
    for (int i = 0; i < nodes.size(); i++) {
      TraceNode n = nodes.get(i);
      modelBit[i] = n.gpus() > 0 ? 1L << modelId(models, n.model()) : 0L;
    }
    tasks = new Task[pods.size()];
    Map<TaskShape, Integer> shapeIds = new HashMap<>();
    List<TargetWorkload.LabeledShape> population = new ArrayList<>(pods.size());
    for (int i = 0; i < pods.size(); i++) {
      TracePod p = pods.get(i);
      long mask = modelMask(models, p.models());
      TaskShape shape = new TaskShape(p.cpuMilli(), p.gpuMilli(), p.gpuCount(), mask);
      int id = shapeIds.computeIfAbsent(shape, s -> shapeIds.size());
      tasks[i] = new Task(p.cpuMilli(), p.memMiB(), p.gpuMilli(), p.gpuCount(), mask, id);
      population.add(new TargetWorkload.LabeledShape(shape, p.gpuSpec()));
    }
    shapeCount = shapeIds.size();
    workload = TargetWorkload.fromPopulation(population, coverage);
    capacity = trace.gpuCapacityMilli();
    if (capacity == 0) {
      throw new IllegalArgumentException("trace " + trace.name() + " has no GPU");
    }
  }

  /** Prepares a trace with the paper's target workload (95% of pods covered). */
  public static PreparedTrace of(Trace trace) {
    return new PreparedTrace(trace, TargetWorkload.DEFAULT_COVERAGE);
  }

  /**
   * The node models a pod may use: those whose name contains an item of its list, ignoring case, as
   * HAMi's {@code use-gputype} matches. An item no node model matches gets a bit of its own, so
   * that the pod stays constrained rather than unconstrained.
   */
  private static long modelMask(Map<String, Integer> models, List<String> items) {
    long mask = 0;
    for (String item : items) {
      String key = item.toLowerCase(Locale.ROOT);
      long bits = 0;
      for (Map.Entry<String, Integer> e : List.copyOf(models.entrySet())) {
        if (!e.getKey().startsWith("\0") && e.getKey().toLowerCase(Locale.ROOT).contains(key)) {
          bits |= 1L << e.getValue();
        }
      }
      mask |= bits != 0 ? bits : 1L << modelId(models, "\0unmatched:" + item);
    }
    return mask;
  }

  private static int modelId(Map<String, Integer> models, String model) {
    Integer id = models.get(model);
    if (id == null) {
      id = models.size();
      if (id >= Long.SIZE - 1) {
        throw new IllegalArgumentException("more than 63 GPU models; cannot number " + model);
      }
      models.put(model, id);
    }
    return id;
  }

  public Trace trace() {
    return trace;
  }

  public String name() {
    return trace.name();
  }

  /** Nodes sorted by name. */
  public List<TraceNode> nodes() {
    return nodes;
  }

  /** Pods sorted by name. */
  public List<TracePod> pods() {
    return pods;
  }

  /** The task of the i-th pod in name order. */
  public Task task(int i) {
    return tasks[i];
  }

  /** Number of distinct task shapes (CPU, GPU share, GPU count, models). */
  public int shapeCount() {
    return shapeCount;
  }

  public TargetWorkload workload() {
    return workload;
  }

  /**
   * The target workload in HAMi's units, for the FGD plugin: each pod asks for its share of a card
   * in memory and cores alike, and its models as allowed device types.
   */
  public HamiWorkload hamiWorkload() {
    HamiWorkload w = hamiWorkload;
    if (w == null) {
      List<HamiShape> shapes = new ArrayList<>(pods.size());
      for (TracePod p : pods) {
        shapes.add(HamiShape.ofShare(p.cpuMilli(), p.gpuCount(), p.gpuMilli(), p.models()));
      }
      w = HamiWorkload.fromPopulation(shapes, TargetWorkload.DEFAULT_COVERAGE);
      hamiWorkload = w;
    }
    return w;
  }

  /** GPU capacity in milli-GPU. */
  public long capacity() {
    return capacity;
  }

  /** A fresh table of the empty cluster, with node {@code order[r]} (name order) at position r. */
  public NodeTable emptyTable(int[] order) {
    int n = nodes.size();
    long[] cpu = new long[n];
    long[] mem = new long[n];
    long[] model = new long[n];
    int[] gpus = new int[n];
    for (int r = 0; r < n; r++) {
      TraceNode node = nodes.get(order[r]);
      cpu[r] = node.cpuMilli();
      mem[r] = node.memMiB();
      model[r] = modelBit[order[r]];
      gpus[r] = node.gpus();
    }
    return new NodeTable(workload, cpu, mem, model, gpus);
  }

  /** Fragmentation rate of the empty cluster in percent. */
  public double emptyFragmentationRate() {
    int[] identity = new int[nodes.size()];
    for (int i = 0; i < identity.length; i++) {
      identity[i] = i;
    }
    NodeTable t = emptyTable(identity);
    return Fragmentation.rate(t.fragmentMilli(), (double) t.totalIdle());
  }
}
