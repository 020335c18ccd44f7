package io.hami.cmd.bench;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A cluster benchmark workload, read from YAML ({@code config/bench/*.yaml}): the nodes, the GPU
 * pods created at a controlled rate, and what else happens while they are measured (churn,
 * unschedulable pods). Parsing applies defaults, then validates, reporting every error with its
 * field path and value.
 *
 * @param name the workload's name, as reported
 * @param nodes the GPU nodes
 * @param pods the measured pods
 * @param churn nodes and pods deleted and re-created while measuring; null for none
 * @param unschedulable an unschedulable pod created at a fixed interval while measuring; null for
 *     none
 * @param scheduler flags of the scheduler under test
 * @param timeout how long the measured pods may take to bind, all together
 */
public record Workload(
    String name,
    Nodes nodes,
    Pods pods,
    @Nullable Churn churn,
    @Nullable Unschedulable unschedulable,
    SchedulerFlags scheduler,
    Duration timeout) {

  public Workload {
    requireNonNull(name);
    requireNonNull(nodes);
    requireNonNull(pods);
    requireNonNull(scheduler);
    requireNonNull(timeout);
  }

  /** How a node's side of the protocol is played. */
  public enum NodeKind {
    /**
     * A Node object with a register annotation and a kept-alive handshake; after binding the
     * harness does what the device plugin does (lock release, bind-phase success). No kubelet.
     */
    LIGHT,
    /** The real node agent over fake GPUs, with a fake kubelet calling its Allocate. */
    AGENT
  }

  /**
   * The cluster's nodes.
   *
   * @param count how many nodes
   * @param gpusPerNode GPUs on each node
   * @param gpuMemoryMiB memory of each GPU
   * @param splitCount how many pods may share one GPU
   * @param kind who plays the node side
   * @param handshakeInterval how often light nodes refresh {@code hami.io/node-handshake}
   */
  public record Nodes(
      int count,
      int gpusPerNode,
      int gpuMemoryMiB,
      int splitCount,
      NodeKind kind,
      Duration handshakeInterval) {}

  /**
   * The measured pods.
   *
   * @param count how many measured pods
   * @param qps pods created per second
   * @param clients concurrent creating clients
   * @param shapes the pod shapes, drawn by weight
   * @param warmup pods bound and deleted before measuring, through the scheduler and again through
   *     the API ceiling, so that both are measured warm (JIT-compiled, connections open), as a
   *     long-running scheduler runs; 0 for none
   * @param template a scheduler_perf workload whose plain pods (no GPUs) are measured instead of
   *     {@code shapes}; null for GPU pods
   * @param init the template's init pods, created already bound before each phase measures
   */
  public record Pods(
      int count,
      double qps,
      int clients,
      List<Shape> shapes,
      int warmup,
      @Nullable PerfWorkload template,
      int init) {
    public Pods {
      shapes = List.copyOf(shapes);
    }

    /** GPU pods of {@code shapes}. */
    public Pods(int count, double qps, int clients, List<Shape> shapes, int warmup) {
      this(count, qps, clients, shapes, warmup, null, 0);
    }

    /** The sum of the shapes' weights. */
    public int totalWeight() {
      return shapes.stream().mapToInt(Shape::weight).sum();
    }
  }

  /**
   * A pod shape: {@code containers} containers, each asking for {@code gpus} vGPUs of {@code
   * memoryMiB} MiB and {@code cores}% of the cores.
   */
  public record Shape(
      String name, int weight, int containers, int gpus, int memoryMiB, int cores) {}

  /**
   * Every {@code interval}: {@code nodes} nodes and {@code pods} bound pods deleted and re-created.
   */
  public record Churn(Duration interval, int nodes, int pods) {}

  /** Every {@code interval}, a pod that fits no node. */
  public record Unschedulable(Duration interval) {}

  /**
   * Flags the scheduler runs with.
   *
   * @param kubeQps the scheduler's {@code --kube-qps}
   * @param kubeBurst the scheduler's {@code --kube-burst}
   * @param heapMiB the scheduler's maximum heap
   * @param bindingThreads the scheduler's {@code --binding-threads}, also the API ceiling's writers
   */
  public record SchedulerFlags(double kubeQps, int kubeBurst, int heapMiB, int bindingThreads) {}

  /**
   * The same workload with other node and pod counts (for scaled-down runs); the warm-up is at most
   * the measured count.
   */
  public Workload scaled(int nodeCount, int podCount) {
    return new Workload(
        name,
        new Nodes(
            nodeCount,
            nodes.gpusPerNode(),
            nodes.gpuMemoryMiB(),
            nodes.splitCount(),
            nodes.kind(),
            nodes.handshakeInterval()),
        new Pods(
            podCount,
            pods.qps(),
            pods.clients(),
            pods.shapes(),
            Math.min(pods.warmup(), podCount),
            pods.template(),
            pods.init()),
        churn,
        unschedulable,
        scheduler,
        timeout);
  }

  /** The same workload with pods created at {@code qps} per second. */
  public Workload withQps(double qps) {
    return new Workload(
        name,
        nodes,
        new Pods(
            pods.count(),
            qps,
            pods.clients(),
            pods.shapes(),
            pods.warmup(),
            pods.template(),
            pods.init()),
        churn,
        unschedulable,
        scheduler,
        timeout);
  }

  /** The same workload with {@code init} init pods (of a {@code pods.template}). */
  public Workload withInit(int init) {
    return new Workload(
        name,
        nodes,
        new Pods(
            pods.count(),
            pods.qps(),
            pods.clients(),
            pods.shapes(),
            pods.warmup(),
            pods.template(),
            init),
        churn,
        unschedulable,
        scheduler,
        timeout);
  }

  /**
   * Why the template's pods cannot all fit on the nodes (see {@link PerfWorkload#capacityProblem}),
   * or null when they can or there is no template; checked again after {@link #scaled} and {@link
   * #withInit}.
   */
  public @Nullable String capacityProblem() {
    PerfWorkload t = pods.template();
    return t == null ? null : t.capacityProblem(nodes.count(), pods.init(), pods.count());
  }

  /** GPU capacity the pods need, in GPUs, as a share of what the nodes have (1.0: full). */
  public double expectedGpuUse() {
    if (pods.template() != null) {
      return 0;
    }
    double perPod = 0;
    for (Shape s : pods.shapes()) {
      double gpuShare = Math.max((double) s.memoryMiB() / nodes.gpuMemoryMiB(), s.cores() / 100.0);
      gpuShare = Math.max(gpuShare, 1.0 / nodes.splitCount());
      perPod += (double) s.weight() / pods.totalWeight() * s.containers() * s.gpus() * gpuShare;
    }
    return perPod * pods.count() / ((double) nodes.count() * nodes.gpusPerNode());
  }

  // Parsing

  /** Thrown for an unreadable or invalid workload; lists every problem. */
  public static final class WorkloadException extends RuntimeException {
    private final List<String> errors;

    public WorkloadException(String source, List<String> errors) {
      super(source + ": " + String.join("; ", errors));
      this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
      return errors;
    }
  }

  private static final YAMLMapper YAML = YAMLMapper.builder().build();
  private static final ImmutableSet<String> TOP =
      ImmutableSet.of(
          "name", "nodes", "pods", "churn", "unschedulable", "scheduler", "timeoutSeconds");
  private static final ImmutableSet<String> NODES =
      ImmutableSet.of(
          "count", "gpusPerNode", "gpuMemoryMiB", "splitCount", "kind", "handshakeIntervalSeconds");
  private static final ImmutableSet<String> PODS =
      ImmutableSet.of("count", "qps", "clients", "shapes", "warmup", "template", "init");
  private static final ImmutableSet<String> SHAPE =
      ImmutableSet.of("name", "weight", "containers", "gpus", "memoryMiB", "cores");
  private static final ImmutableSet<String> CHURN =
      ImmutableSet.of("intervalMillis", "nodes", "pods");
  private static final ImmutableSet<String> UNSCHED = ImmutableSet.of("intervalMillis");
  private static final ImmutableSet<String> SCHED =
      ImmutableSet.of("kubeQps", "kubeBurst", "heapMiB", "bindingThreads");

  /** Reads and validates a workload file. */
  public static Workload load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new WorkloadException(file.toString(), List.of("cannot read: " + e.getMessage()));
    }
    return parse(text, file.toString());
  }

  /** Parses and validates YAML text; {@code source} names it in errors. */
  public static Workload parse(String yaml, String source) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException e) {
      throw new WorkloadException(source, List.of("not valid YAML: " + e.getOriginalMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new WorkloadException(source, List.of("want a mapping at the top level"));
    }
    Fields f = new Fields();
    f.known(root, "", TOP);
    String name = f.string(root, "", "name", null);
    if (name != null && name.isBlank()) {
      f.error("name", "\"\"", "must not be empty");
    }

    JsonNode n = f.object(root, "", "nodes", true);
    int nodeCount = f.integer(n, "nodes.", "count", null, 1, 100_000);
    int gpus = f.integer(n, "nodes.", "gpusPerNode", 8, 1, 64);
    int gpuMem = f.integer(n, "nodes.", "gpuMemoryMiB", 16_384, 1, 1 << 20);
    int split = f.integer(n, "nodes.", "splitCount", 10, 1, 1000);
    String kindText = f.string(n, "nodes.", "kind", "light");
    NodeKind kind = NodeKind.LIGHT;
    if (kindText != null) {
      switch (kindText) {
        case "light" -> kind = NodeKind.LIGHT;
        case "agent" -> kind = NodeKind.AGENT;
        default -> f.error("nodes.kind", "\"" + kindText + "\"", "must be one of light, agent");
      }
    }
    int handshake = f.integer(n, "nodes.", "handshakeIntervalSeconds", 30, 1, 3600);
    f.known(n, "nodes.", NODES);

    JsonNode p = f.object(root, "", "pods", true);
    int podCount = f.integer(p, "pods.", "count", null, 1, 10_000_000);
    double qps = f.number(p, "pods.", "qps", 500, 0.1, 100_000);
    int clients = f.integer(p, "pods.", "clients", 8, 1, 256);
    int warmup = f.integer(p, "pods.", "warmup", 0, 0, 1_000_000);
    f.known(p, "pods.", PODS);
    List<Shape> shapes = new ArrayList<>();
    JsonNode shapesNode = p == null ? null : p.get("shapes");
    String templateText = f.string(p, "pods.", "template", "");
    PerfWorkload template = null;
    int init = 0;
    if (templateText != null && !templateText.isEmpty()) {
      template = PerfWorkload.fromTemplate(templateText);
      if (template == null) {
        f.error(
            "pods.template",
            "\"" + templateText + "\"",
            "must be one of " + PerfWorkload.TEMPLATES);
      }
    }
    if (template != null) {
      init = f.integer(p, "pods.", "init", template.initPods(), 0, 1_000_000);
      if (shapesNode != null) {
        f.error("pods.shapes", shapesNode.toString(), "not allowed with pods.template");
      }
      // Warm-up pods are the measured template's, bound and deleted before measuring, in rounds
      // until the scheduler's CPU per pod settles (SteadyState), so that a JVM scheduler is
      // measured JIT-compiled, as a long-running one runs; a round is one measured set.
      if (p != null && !p.has("warmup")) {
        warmup = podCount;
      }
    } else if (p != null && p.has("init")) {
      f.error("pods.init", String.valueOf(p.get("init")), "only with pods.template");
    }
    // A template (valid or not, its error is reported above) names the pods instead of shapes.
    boolean templated = templateText != null && !templateText.isEmpty();
    if (!templated
        && p != null
        && (shapesNode == null || !shapesNode.isArray() || shapesNode.isEmpty())) {
      f.error(
          "pods.shapes",
          shapesNode == null ? "(missing)" : shapesNode.toString(),
          "want a non-empty list of shapes");
    } else if (!templated && shapesNode != null) {
      for (int i = 0; i < shapesNode.size(); i++) {
        JsonNode s = shapesNode.get(i);
        String at = "pods.shapes[" + i + "].";
        if (!s.isObject()) {
          f.error("pods.shapes[" + i + "]", s.toString(), "want a mapping");
          continue;
        }
        f.known(s, at, SHAPE);
        String shapeName = f.string(s, at, "name", "shape-" + i);
        int weight = f.integer(s, at, "weight", 1, 1, 1_000_000);
        int containers = f.integer(s, at, "containers", 1, 1, 16);
        int shapeGpus = f.integer(s, at, "gpus", 1, 1, 64);
        int mem = f.integer(s, at, "memoryMiB", null, 1, 1 << 20);
        int cores = f.integer(s, at, "cores", 0, 0, 100);
        if (shapeGpus > gpus && n != null) {
          f.error(at + "gpus", Integer.toString(shapeGpus), "exceeds nodes.gpusPerNode " + gpus);
        }
        if (mem > gpuMem && n != null) {
          f.error(at + "memoryMiB", Integer.toString(mem), "exceeds nodes.gpuMemoryMiB " + gpuMem);
        }
        shapes.add(
            new Shape(
                shapeName == null ? "shape-" + i : shapeName,
                weight,
                containers,
                shapeGpus,
                mem,
                cores));
      }
    }

    Churn churn = null;
    JsonNode c = f.object(root, "", "churn", false);
    if (c != null) {
      f.known(c, "churn.", CHURN);
      int interval = f.integer(c, "churn.", "intervalMillis", 1000, 10, 3_600_000);
      int churnNodes = f.integer(c, "churn.", "nodes", 0, 0, 100_000);
      int churnPods = f.integer(c, "churn.", "pods", 0, 0, 100_000);
      if (churnNodes == 0 && churnPods == 0) {
        f.error("churn", c.toString(), "churns nothing: set nodes or pods above 0");
      }
      if (churnNodes >= nodeCount && nodeCount > 0) {
        f.error(
            "churn.nodes", Integer.toString(churnNodes), "must be below nodes.count " + nodeCount);
      }
      churn = new Churn(Duration.ofMillis(interval), churnNodes, churnPods);
    }
    Unschedulable unschedulable = null;
    JsonNode u = f.object(root, "", "unschedulable", false);
    if (u != null) {
      f.known(u, "unschedulable.", UNSCHED);
      unschedulable =
          new Unschedulable(
              Duration.ofMillis(
                  f.integer(u, "unschedulable.", "intervalMillis", 200, 10, 3_600_000)));
    }
    JsonNode s = f.object(root, "", "scheduler", false);
    double kubeQps = f.number(s, "scheduler.", "kubeQps", 5000, 1, 1_000_000);
    int kubeBurst = f.integer(s, "scheduler.", "kubeBurst", 10_000, 1, 1_000_000);
    int heap = f.integer(s, "scheduler.", "heapMiB", 1024, 64, 1 << 20);
    int bindingThreads = f.integer(s, "scheduler.", "bindingThreads", 16, 1, 1024);
    if (s != null) {
      f.known(s, "scheduler.", SCHED);
    }
    int timeout = f.integer(root, "", "timeoutSeconds", 900, 1, 86_400);
    if (kind == NodeKind.AGENT && nodeCount > 16) {
      f.error(
          "nodes.count",
          Integer.toString(nodeCount),
          "at most 16 with kind agent (each runs a node agent in the harness)");
    }
    if (template != null) {
      if (kind != NodeKind.LIGHT) {
        f.error("nodes.kind", "\"agent\"", "pods.template needs kind light");
      }
      if (c != null) {
        f.error("churn", c.toString(), "not supported with pods.template");
      }
      if (u != null) {
        f.error("unschedulable", u.toString(), "not supported with pods.template");
      }
      String problem = template.capacityProblem(nodeCount, init, podCount);
      if (problem != null && n != null) {
        f.error("pods.count", Integer.toString(podCount), problem);
      }
    }
    if (kind == NodeKind.AGENT && churn != null && churn.nodes() > 0) {
      f.error("churn.nodes", Integer.toString(churn.nodes()), "node churn needs kind light");
    }
    if (!f.errors.isEmpty()) {
      throw new WorkloadException(source, f.errors);
    }
    return new Workload(
        requireNonNull(name),
        new Nodes(nodeCount, gpus, gpuMem, split, kind, Duration.ofSeconds(handshake)),
        new Pods(podCount, qps, clients, shapes, warmup, template, init),
        churn,
        unschedulable,
        new SchedulerFlags(kubeQps, kubeBurst, heap, bindingThreads),
        Duration.ofSeconds(timeout));
  }

  /** Field readers that collect errors instead of throwing. */
  private static final class Fields {
    final List<String> errors = new ArrayList<>();

    void error(String path, String value, String why) {
      errors.add(path + ": invalid value " + value + ": " + why);
    }

    void known(@Nullable JsonNode node, String at, Set<String> allowed) {
      if (node == null) {
        return;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
          it.hasNext(); ) {
        String key = it.next().getKey();
        if (!allowed.contains(key)) {
          errors.add(
              at
                  + key
                  + ": unknown field (known: "
                  + String.join(", ", allowed.stream().sorted().toList())
                  + ")");
        }
      }
    }

    @Nullable JsonNode object(
        @Nullable JsonNode parent, String at, String field, boolean required) {
      JsonNode v = parent == null ? null : parent.get(field);
      if (v == null || v.isNull()) {
        if (required) {
          errors.add(at + field + ": required");
        }
        return null;
      }
      if (!v.isObject()) {
        error(at + field, v.toString(), "want a mapping");
        return null;
      }
      return v;
    }

    @Nullable String string(
        @Nullable JsonNode parent, String at, String field, @Nullable String dflt) {
      JsonNode v = parent == null ? null : parent.get(field);
      if (v == null || v.isNull()) {
        if (dflt == null && parent != null) {
          errors.add(at + field + ": required");
        }
        return dflt;
      }
      if (!v.isString()) {
        error(at + field, v.toString(), "want a string");
        return dflt;
      }
      return v.asString();
    }

    int integer(
        @Nullable JsonNode parent,
        String at,
        String field,
        @Nullable Integer dflt,
        int min,
        int max) {
      JsonNode v = parent == null ? null : parent.get(field);
      if (v == null || v.isNull()) {
        if (dflt == null && parent != null) {
          errors.add(at + field + ": required");
        }
        return dflt == null ? min : dflt;
      }
      if (!v.isIntegralNumber() || !v.canConvertToInt()) {
        error(at + field, v.toString(), "want an integer");
        return dflt == null ? min : dflt;
      }
      int i = v.intValue();
      if (i < min || i > max) {
        error(at + field, Integer.toString(i), "must be in " + min + ".." + max);
      }
      return i;
    }

    double number(
        @Nullable JsonNode parent, String at, String field, double dflt, double min, double max) {
      JsonNode v = parent == null ? null : parent.get(field);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (!v.isNumber()) {
        error(at + field, v.toString(), "want a number");
        return dflt;
      }
      double d = v.doubleValue();
      if (!(d >= min && d <= max)) {
        error(at + field, String.format(Locale.ROOT, "%s", v), "must be in " + min + ".." + max);
      }
      return d;
    }
  }
}
