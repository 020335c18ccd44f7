package io.hami.nodeagent.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.hami.model.config.MigAllowlistEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything the node agent needs, validated before anything starts. Built from flags, then
 * environment, then the device config file (in that order of precedence) by the command.
 *
 * @param nodeName this node's name
 * @param resourceName the kubelet resource counting vGPUs, e.g. {@code nvidia.com/gpu}
 * @param splitCount vGPUs per physical GPU (register {@code count} and kubelet replicas)
 * @param memoryScaling register {@code devmem} = floor(total MiB × scaling)
 * @param coreScaling register {@code devcore} = int(100 × scaling)
 * @param preConfiguredMemoryMiB memory for GPUs that do not report it (unified memory); 0: skip
 *     them
 * @param mode the register {@code mode}
 * @param deviceDir kubelet's device-plugin directory (holds {@code kubelet.sock})
 * @param hookPath where libvgpu lives on the host ({@code <hookPath>/vgpu/...})
 * @param libCudaLogLevel {@code LIBCUDA_LOG_LEVEL} for containers, or null to leave it unset
 * @param disableCoreLimit give containers {@code GPU_CORE_UTILIZATION_POLICY=disable}
 * @param allowDisableControl honour a container's {@code CUDA_DISABLE_CONTROL=true}
 * @param numaTopology attach NUMA topology to kubelet devices
 * @param preferredAllocation answer GetPreferredAllocation from the scheduler's choice
 * @param topologyScore publish {@code hami.io/node-nvidia-score}
 * @param answerHandshake answer a scheduler's {@code Requesting_} handshake with a report
 * @param registerInterval register re-check period after success
 * @param registerErrorInterval register re-check period after an error
 * @param excludedUuids GPUs not to register, by UUID
 * @param excludedIndices GPUs not to register, by NVML index
 * @param health XID health checking
 * @param migProfileAllowlist in MIG mode, the profiles registered per GPU model (empty: all)
 * @param monitor run the utilisation monitor (feedback to libvgpu: SM-limit switch, priorities)
 * @param monitorPeriod how often the monitor reads every region and writes its feedback
 * @param hostPidBroker the host-pid broker's Unix socket, or null for no broker
 */
public record NodeAgentConfig(
    String nodeName,
    String resourceName,
    int splitCount,
    double memoryScaling,
    double coreScaling,
    long preConfiguredMemoryMiB,
    OperatingMode mode,
    Path deviceDir,
    Path hookPath,
    @Nullable String libCudaLogLevel,
    boolean disableCoreLimit,
    boolean allowDisableControl,
    boolean numaTopology,
    boolean preferredAllocation,
    boolean topologyScore,
    boolean answerHandshake,
    Duration registerInterval,
    Duration registerErrorInterval,
    ImmutableSet<String> excludedUuids,
    ImmutableSet<Integer> excludedIndices,
    HealthCheckPolicy health,
    ImmutableList<MigAllowlistEntry> migProfileAllowlist,
    boolean monitor,
    Duration monitorPeriod,
    @Nullable Path hostPidBroker) {

  public static final Path DEFAULT_DEVICE_DIR = Path.of("/var/lib/kubelet/device-plugins");
  public static final String DEFAULT_RESOURCE = "nvidia.com/gpu";
  public static final Duration DEFAULT_MONITOR_PERIOD = Duration.ofSeconds(5);

  /** Where libvgpu looks for the host-pid broker, inside containers and (same path) on the host. */
  public static final Path DEFAULT_HOSTPID_BROKER = Path.of("/tmp/vgpulock/hostpid/broker.sock");

  /** The monitor period's bounds: shorter burns CPU on every region, longer starves priorities. */
  static final Duration MIN_MONITOR_PERIOD = Duration.ofMillis(100);

  static final Duration MAX_MONITOR_PERIOD = Duration.ofMinutes(10);

  /** The config's problems, each naming the field and value; empty when valid. */
  public ImmutableList<String> problems() {
    List<String> p = new ArrayList<>();
    if (nodeName.isBlank()) {
      p.add("node name: must be set (--node-name or NODE_NAME)");
    }
    int slash = resourceName.indexOf('/');
    if (slash <= 0
        || slash == resourceName.length() - 1
        || resourceName.indexOf('/', slash + 1) >= 0) {
      p.add("resource name: '" + resourceName + "' is not <domain>/<name>");
    }
    if (splitCount < 1 || splitCount > 1024) {
      p.add("device split count: " + splitCount + " is not in 1..1024");
    }
    if (!(memoryScaling > 0) || Double.isInfinite(memoryScaling)) {
      p.add("device memory scaling: " + memoryScaling + " must be > 0");
    }
    if (!(coreScaling > 0) || Double.isInfinite(coreScaling)) {
      p.add("device core scaling: " + coreScaling + " must be > 0");
    }
    if (preConfiguredMemoryMiB < 0) {
      p.add("preconfigured device memory: " + preConfiguredMemoryMiB + " must be >= 0");
    }
    if (registerInterval.isNegative() || registerInterval.isZero()) {
      p.add("register interval: " + registerInterval + " must be > 0");
    }
    if (registerErrorInterval.isNegative() || registerErrorInterval.isZero()) {
      p.add("register error interval: " + registerErrorInterval + " must be > 0");
    }
    if (monitorPeriod.compareTo(MIN_MONITOR_PERIOD) < 0
        || monitorPeriod.compareTo(MAX_MONITOR_PERIOD) > 0) {
      p.add(
          "monitor period: " + monitorPeriod + " is not between 100ms and 10m (--monitor-period)");
    }
    if (hostPidBroker != null && hostPidBroker.toString().getBytes(UTF_8).length > 107) {
      p.add(
          "host-pid broker socket: '"
              + hostPidBroker
              + "' is longer than a Unix socket path may be (107 bytes)");
    }
    if (libCudaLogLevel != null && !libCudaLogLevel.matches("[0-4]")) {
      p.add("libcuda log level: '" + libCudaLogLevel + "' is not 0..4");
    }
    return ImmutableList.copyOf(p);
  }

  /** The plugin's socket name: {@code nvidia-<name>} for a resource {@code <domain>/<name>}. */
  public String socketName() {
    return "nvidia-" + resourceName.substring(resourceName.indexOf('/') + 1) + ".sock";
  }

  public static Builder builder(String nodeName) {
    return new Builder(nodeName);
  }

  public Builder toBuilder() {
    Builder b = new Builder(nodeName);
    b.resourceName = resourceName;
    b.splitCount = splitCount;
    b.memoryScaling = memoryScaling;
    b.coreScaling = coreScaling;
    b.preConfiguredMemoryMiB = preConfiguredMemoryMiB;
    b.mode = mode;
    b.deviceDir = deviceDir;
    b.hookPath = hookPath;
    b.libCudaLogLevel = libCudaLogLevel;
    b.disableCoreLimit = disableCoreLimit;
    b.allowDisableControl = allowDisableControl;
    b.numaTopology = numaTopology;
    b.preferredAllocation = preferredAllocation;
    b.topologyScore = topologyScore;
    b.answerHandshake = answerHandshake;
    b.registerInterval = registerInterval;
    b.registerErrorInterval = registerErrorInterval;
    b.excludedUuids = excludedUuids;
    b.excludedIndices = excludedIndices;
    b.health = health;
    b.migProfileAllowlist = migProfileAllowlist;
    b.monitor = monitor;
    b.monitorPeriod = monitorPeriod;
    b.hostPidBroker = hostPidBroker;
    return b;
  }

  /** Defaults as HAMi's chart ships them. */
  public static final class Builder {
    private String nodeName;
    private String resourceName = DEFAULT_RESOURCE;
    private int splitCount = 10;
    private double memoryScaling = 1;
    private double coreScaling = 1;
    private long preConfiguredMemoryMiB;
    private OperatingMode mode = OperatingMode.HAMI_CORE;
    private Path deviceDir = DEFAULT_DEVICE_DIR;
    private Path hookPath = Path.of("/usr/local");
    private @Nullable String libCudaLogLevel;
    private boolean disableCoreLimit;
    private boolean allowDisableControl;
    private boolean numaTopology;
    private boolean preferredAllocation;
    private boolean topologyScore;
    private boolean answerHandshake = true;
    private Duration registerInterval = Duration.ofSeconds(30);
    private Duration registerErrorInterval = Duration.ofSeconds(5);
    private ImmutableSet<String> excludedUuids = ImmutableSet.of();
    private ImmutableSet<Integer> excludedIndices = ImmutableSet.of();
    private HealthCheckPolicy health = HealthCheckPolicy.defaults();
    private ImmutableList<MigAllowlistEntry> migProfileAllowlist = ImmutableList.of();
    private boolean monitor = true;
    private Duration monitorPeriod = DEFAULT_MONITOR_PERIOD;
    // Off unless asked for: several agents in one process (tests, hami up) cannot share one path.
    private @Nullable Path hostPidBroker;

    private Builder(String nodeName) {
      this.nodeName = nodeName;
    }

    public Builder nodeName(String v) {
      nodeName = v;
      return this;
    }

    public Builder resourceName(String v) {
      resourceName = v;
      return this;
    }

    public Builder splitCount(int v) {
      splitCount = v;
      return this;
    }

    public Builder memoryScaling(double v) {
      memoryScaling = v;
      return this;
    }

    public Builder coreScaling(double v) {
      coreScaling = v;
      return this;
    }

    public Builder preConfiguredMemoryMiB(long v) {
      preConfiguredMemoryMiB = v;
      return this;
    }

    public Builder mode(OperatingMode v) {
      mode = v;
      return this;
    }

    public Builder deviceDir(Path v) {
      deviceDir = v;
      return this;
    }

    public Builder hookPath(Path v) {
      hookPath = v;
      return this;
    }

    public Builder libCudaLogLevel(@Nullable String v) {
      libCudaLogLevel = v;
      return this;
    }

    public Builder disableCoreLimit(boolean v) {
      disableCoreLimit = v;
      return this;
    }

    public Builder allowDisableControl(boolean v) {
      allowDisableControl = v;
      return this;
    }

    public Builder numaTopology(boolean v) {
      numaTopology = v;
      return this;
    }

    public Builder preferredAllocation(boolean v) {
      preferredAllocation = v;
      return this;
    }

    public Builder topologyScore(boolean v) {
      topologyScore = v;
      return this;
    }

    public Builder answerHandshake(boolean v) {
      answerHandshake = v;
      return this;
    }

    public Builder registerInterval(Duration v) {
      registerInterval = v;
      return this;
    }

    public Builder registerErrorInterval(Duration v) {
      registerErrorInterval = v;
      return this;
    }

    public Builder excludedUuids(Iterable<String> v) {
      excludedUuids = ImmutableSet.copyOf(v);
      return this;
    }

    public Builder excludedIndices(Iterable<Integer> v) {
      excludedIndices = ImmutableSet.copyOf(v);
      return this;
    }

    public Builder health(HealthCheckPolicy v) {
      health = v;
      return this;
    }

    public Builder migProfileAllowlist(Iterable<MigAllowlistEntry> v) {
      migProfileAllowlist = ImmutableList.copyOf(v);
      return this;
    }

    public Builder monitor(boolean v) {
      monitor = v;
      return this;
    }

    public Builder monitorPeriod(Duration v) {
      monitorPeriod = v;
      return this;
    }

    public Builder hostPidBroker(@Nullable Path v) {
      hostPidBroker = v;
      return this;
    }

    public NodeAgentConfig build() {
      return new NodeAgentConfig(
          nodeName,
          resourceName,
          splitCount,
          memoryScaling,
          coreScaling,
          preConfiguredMemoryMiB,
          mode,
          deviceDir,
          hookPath,
          libCudaLogLevel,
          disableCoreLimit,
          allowDisableControl,
          numaTopology,
          preferredAllocation,
          topologyScore,
          answerHandshake,
          registerInterval,
          registerErrorInterval,
          excludedUuids,
          excludedIndices,
          health,
          migProfileAllowlist,
          monitor,
          monitorPeriod,
          hostPidBroker);
    }
  }
}
