package io.hami.nodeagent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.cli.ClusterOptions;
import io.hami.model.device.NodeDeviceJson;
import io.hami.nodeagent.NodeAgent;
import io.hami.nodeagent.config.FileSettings;
import io.hami.nodeagent.config.HealthCheckPolicy;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import io.hami.nodeagent.nvml.JniNvml;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import io.hami.nodeagent.nvml.SysfsNuma;
import io.hami.nodeagent.publish.MigProfiles;
import io.hami.nodeagent.publish.RegisterRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami node-agent}: publishes this node's GPUs for the scheduler and serves kubelet's
 * device-plugin API. Exit codes: 0 stopped, 1 failed while running, 2 bad flags or config (all
 * problems are printed), 3 NVML could not be initialised.
 */
@Command(
    name = "node-agent",
    mixinStandardHelpOptions = true,
    description = "Publishes the node's GPUs and serves kubelet's device-plugin API.")
public final class NodeAgentCommand implements Callable<Integer> {
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_NVML = 3;

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      description = "This node's name (default: env NODE_NAME).")
  @Nullable String nodeName;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--device-config-file",
      defaultValue = "${env:DEVICE_CONFIG_FILE}",
      description =
          "The shared device config (device-config.yaml); its nvidia section applies below flags.")
  @Nullable Path deviceConfigFile;

  @Option(
      names = "--node-config-file",
      defaultValue = "${env:NODE_CONFIG_FILE}",
      description = "Per-node overrides (config.json with a nodeconfig list); applies below flags.")
  @Nullable Path nodeConfigFile;

  @Option(
      names = "--resource-name",
      description = "Resource counting vGPUs (default: nvidia.com/gpu).")
  @Nullable String resourceName;

  @Option(names = "--device-split-count", description = "vGPUs per GPU (default: 10).")
  @Nullable String splitCount;

  @Option(
      names = "--device-memory-scaling",
      description = "Registered memory = total x scaling (default: 1).")
  @Nullable String memoryScaling;

  @Option(
      names = "--device-core-scaling",
      description = "Registered cores = 100 x scaling (default: 1).")
  @Nullable String coreScaling;

  @Option(
      names = "--preconfigured-device-memory",
      description = "MiB to register for GPUs that do not report memory (default: 0).")
  @Nullable String preConfiguredMemory;

  @Option(names = "--mode", description = "hami-core, mig or mps (default: hami-core).")
  @Nullable String mode;

  @Option(
      names = "--kubelet-socket-dir",
      defaultValue = "/var/lib/kubelet/device-plugins",
      description = "Kubelet's device-plugin directory (default: ${DEFAULT-VALUE}).")
  Path deviceDir = NodeAgentConfig.DEFAULT_DEVICE_DIR;

  @Option(
      names = "--hook-path",
      defaultValue = "${env:HOOK_PATH:-/usr/local}",
      description = "Host directory holding vgpu/libvgpu.so (default: ${DEFAULT-VALUE}).")
  Path hookPath = Path.of("/usr/local");

  @Option(
      names = "--fake-gpus",
      description = "Serve fake GPUs instead of NVML, e.g. 8xNVIDIA-H200:143771MiB,numa=0-1.")
  @Nullable String fakeGpus;

  @Option(
      names = "--metrics-address",
      defaultValue = ":9394",
      description = "Prometheus /metrics address, empty to disable (default: ${DEFAULT-VALUE}).")
  @Nullable String metricsAddress;

  @Option(
      names = "--register-interval",
      defaultValue = "30s",
      description = "Register annotation re-check period (default: ${DEFAULT-VALUE}).")
  @Nullable String registerInterval;

  @Option(
      names = "--register-error-interval",
      defaultValue = "5s",
      description = "Re-check period after an error (default: ${DEFAULT-VALUE}).")
  @Nullable String registerErrorInterval;

  @Option(
      names = "--topology-score",
      defaultValue = "${env:ENABLE_TOPOLOGY_SCORE:-false}",
      description = "Publish hami.io/node-nvidia-score (default: env ENABLE_TOPOLOGY_SCORE).")
  @Nullable String topologyScore;

  @Option(
      names = "--monitor",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "${env:HAMI_MONITOR:-true}",
      description =
          "Run the utilisation monitor: lifts the SM limit of a container alone on its GPUs and"
              + " holds back lower-priority work (default: ${DEFAULT-VALUE}).")
  @Nullable String monitor;

  @Option(
      names = "--monitor-period",
      defaultValue = "5s",
      description =
          "How often the monitor reads every container's region (default: ${DEFAULT-VALUE}).")
  @Nullable String monitorPeriod;

  @Option(
      names = "--hostpid-broker-socket",
      defaultValue = "/tmp/vgpulock/hostpid/broker.sock",
      description =
          "Unix socket answering containers their host pid while the monitor runs, empty to"
              + " disable (default: ${DEFAULT-VALUE}).")
  @Nullable String hostPidBroker;

  @Option(names = "--lib-cuda-log-level", description = "LIBCUDA_LOG_LEVEL for containers (0-4).")
  @Nullable String libCudaLogLevel;

  @Option(
      names = "--disable-core-limit",
      description = "Containers get GPU_CORE_UTILIZATION_POLICY=disable.")
  @Nullable Boolean disableCoreLimit;

  @Option(
      names = "--allow-disable-control",
      description = "Honour a container's CUDA_DISABLE_CONTROL=true (default: not allowed).")
  boolean allowDisableControl;

  @Option(names = "--enable-numa-topology", description = "Attach NUMA nodes to kubelet devices.")
  @Nullable Boolean numaTopology;

  @Option(
      names = "--preferred-allocation",
      description = "Offer GetPreferredAllocation from the scheduler's choice.")
  @Nullable Boolean preferredAllocation;

  @Option(names = "--exclude-gpu", split = ",", description = "GPU UUIDs or indices not to serve.")
  List<String> excluded = new ArrayList<>();

  @Option(
      names = "--print-register",
      description = "Print the register annotation this node would publish, then exit.")
  boolean printRegister;

  /** The validated config, or the list of problems. */
  record Parsed(
      @Nullable NodeAgentConfig config, @Nullable InetSocketAddress metrics, List<String> errors) {}

  Parsed parse() {
    List<String> errors = new ArrayList<>();
    String node = nodeName == null ? "" : nodeName.trim();
    FileSettings file = FileSettings.NONE;
    if (deviceConfigFile != null && !deviceConfigFile.toString().isBlank()) {
      file = FileSettings.deviceConfig(deviceConfigFile, errors);
    }
    if (nodeConfigFile != null && !nodeConfigFile.toString().isBlank()) {
      file = file.overriddenBy(FileSettings.nodeConfig(nodeConfigFile, node, errors));
    }
    NodeAgentConfig.Builder b = NodeAgentConfig.builder(node);
    String resource = resourceName != null ? resourceName : file.resourceName();
    if (resource != null) {
      b.resourceName(resource.trim());
    }
    Integer split =
        splitCount != null
            ? Flags.integer("--device-split-count", splitCount, errors)
            : file.splitCount();
    if (split != null) {
      b.splitCount(split);
    }
    Double mem =
        memoryScaling != null
            ? Flags.decimal("--device-memory-scaling", memoryScaling, errors)
            : file.memoryScaling();
    if (mem != null) {
      b.memoryScaling(mem);
    }
    Double core =
        coreScaling != null
            ? Flags.decimal("--device-core-scaling", coreScaling, errors)
            : file.coreScaling();
    if (core != null) {
      b.coreScaling(core);
    }
    Long pre =
        preConfiguredMemory != null
            ? Flags.longValue("--preconfigured-device-memory", preConfiguredMemory, errors)
            : file.preConfiguredMemoryMiB();
    if (pre != null) {
      b.preConfiguredMemoryMiB(pre);
    }
    if (mode != null) {
      OperatingMode.parse(mode)
          .ifPresentOrElse(
              b::mode, () -> errors.add("--mode: '" + mode + "' is not hami-core, mig or mps"));
    } else if (file.mode() != null) {
      b.mode(file.mode());
    }
    b.deviceDir(deviceDir).hookPath(hookPath);
    Duration ri = Flags.duration("--register-interval", registerInterval, errors);
    if (ri != null) {
      b.registerInterval(ri);
    }
    Duration rei = Flags.duration("--register-error-interval", registerErrorInterval, errors);
    if (rei != null) {
      b.registerErrorInterval(rei);
    }
    Boolean mon = Flags.bool("--monitor", monitor, errors);
    b.monitor(mon == null || mon);
    Duration mp = Flags.duration("--monitor-period", monitorPeriod, errors);
    if (mp != null) {
      b.monitorPeriod(mp);
    }
    b.hostPidBroker(
        hostPidBroker == null || hostPidBroker.isBlank() ? null : Path.of(hostPidBroker.trim()));
    Boolean topo = Flags.bool("--topology-score", topologyScore, errors);
    b.topologyScore(topo != null && topo);
    b.libCudaLogLevel(libCudaLogLevel != null ? libCudaLogLevel : file.libCudaLogLevel());
    b.disableCoreLimit(first(disableCoreLimit, file.disableCoreLimit()))
        .allowDisableControl(allowDisableControl)
        .numaTopology(first(numaTopology, file.numaTopology()))
        .preferredAllocation(first(preferredAllocation, file.preferredAllocation()));
    List<String> uuids = new ArrayList<>(file.excludedUuids());
    List<Integer> indices = new ArrayList<>(file.excludedIndices());
    for (String e : excluded) {
      String t = e.trim();
      if (t.matches("\\d+")) {
        indices.add(Integer.parseInt(t));
      } else if (t.startsWith("GPU-") || t.startsWith("MIG-")) {
        uuids.add(t);
      } else if (!t.isEmpty()) {
        errors.add("--exclude-gpu: '" + t + "' is neither a GPU UUID nor an index");
      }
    }
    b.excludedUuids(uuids).excludedIndices(indices);
    b.migProfileAllowlist(file.migProfileAllowlist());
    b.health(
        HealthCheckPolicy.fromEnv(
            System.getenv("DP_DISABLE_HEALTHCHECKS"),
            System.getenv("DP_ENABLE_HEALTHCHECKS"),
            errors));
    InetSocketAddress metrics = Flags.address("--metrics-address", metricsAddress, errors);
    String clusterProblem = cluster.problem();
    if (clusterProblem != null) {
      errors.add(clusterProblem);
    }
    NodeAgentConfig config = b.build();
    errors.addAll(config.problems());
    if (fakeGpus != null) {
      try {
        FakeNvml.fromSpec(fakeGpus, config.nodeName());
      } catch (IllegalArgumentException e) {
        errors.add("--fake-gpus: " + e.getMessage());
      }
    }
    return new Parsed(errors.isEmpty() ? config : null, metrics, errors);
  }

  private static boolean first(@Nullable Boolean flag, @Nullable Boolean file) {
    return flag != null ? flag : file != null && file;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec().commandLine().getOut();
    PrintWriter err = spec().commandLine().getErr();
    Parsed parsed = parse();
    if (parsed.config() == null) {
      for (String e : parsed.errors()) {
        err.println("error: " + e);
      }
      err.flush();
      return EXIT_USAGE;
    }
    NodeAgentConfig config = parsed.config();
    Nvml nvml;
    try {
      nvml =
          fakeGpus != null
              ? FakeNvml.fromSpec(fakeGpus, config.nodeName())
              : JniNvml.open(SysfsNuma.system());
    } catch (NvmlException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return EXIT_NVML;
    }
    if (printRegister) {
      try (nvml) {
        List<Gpu> gpus = new ArrayList<>();
        for (GpuInfo g : nvml.devices()) {
          gpus.add(Gpu.healthy(g));
        }
        out.println(
            NodeDeviceJson.encode(
                RegisterRecords.build(
                    config,
                    gpus,
                    config.mode() == OperatingMode.MIG
                        ? MigProfiles.discover(config, nvml, gpus)
                        : Map.of())));
        out.flush();
        return 0;
      } catch (NvmlException e) {
        err.println("error: " + e.getMessage());
        err.flush();
        return EXIT_NVML;
      }
    }
    return run(config, nvml, parsed.metrics(), err);
  }

  private int run(
      NodeAgentConfig config, Nvml nvml, @Nullable InetSocketAddress metrics, PrintWriter err) {
    KubernetesClient client;
    try {
      client = cluster.client();
    } catch (IOException | RuntimeException e) {
      err.println("error: cannot configure the Kubernetes client: " + e.getMessage());
      err.flush();
      nvml.close();
      return EXIT_USAGE;
    }
    try (client) {
      NodeAgent agent;
      try {
        agent =
            NodeAgent.create(
                config, nvml, client, metrics, Clock.systemUTC(), NodeAgent.Tuning.defaults());
      } catch (NvmlException e) {
        err.println("error: GPU discovery failed: " + e.getMessage());
        err.flush();
        nvml.close();
        return EXIT_NVML;
      }
      Thread hook = new Thread(() -> agent.stop(Duration.ofSeconds(20)), "node-agent-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        agent.start(Duration.ofSeconds(60));
      } catch (TimeoutException | IllegalStateException e) {
        err.println("error: node agent failed to start: " + e.getMessage());
        err.flush();
        agent.stop(Duration.ofSeconds(20));
        return EXIT_RUNTIME;
      }
      try {
        int code = agent.awaitTermination(Duration.ofSeconds(20));
        agent.stop(Duration.ofSeconds(1));
        return code == 0 ? 0 : EXIT_RUNTIME;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return EXIT_RUNTIME;
      }
    }
  }

  private CommandSpec spec() {
    if (spec == null) {
      throw new IllegalStateException("not run through picocli");
    }
    return spec;
  }
}
