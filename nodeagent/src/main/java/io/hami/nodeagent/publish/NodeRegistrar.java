package io.hami.nodeagent.publish;

import com.google.common.util.concurrent.AbstractScheduledService;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.PatchTargets;
import io.hami.kube.WriteRetry;
import io.hami.model.Annotations;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.handshake.Handshake;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.config.OperatingMode;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the node's GPUs in {@code hami.io/node-nvidia-register} (spec §7.1): re-checked every
 * {@code registerInterval} (5 s after an error) and patched only when the value on the node
 * differs. Also answers a scheduler's handshake request (§3) while the node's allocatable count is
 * 0 (no kubelet registration yet, so a report is the only sign of life) and writes the pair scores
 * when topology scoring is on. Runs on the injected executor; one iteration at a time.
 */
public final class NodeRegistrar extends AbstractScheduledService {
  private static final Logger log = LoggerFactory.getLogger(NodeRegistrar.class);
  private static final DateTimeFormatter REPORTED =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS '+0000 UTC'");

  /** What one pass did. */
  public enum Outcome {
    UNCHANGED,
    PATCHED
  }

  private final KubernetesClient client;
  private final NodeAgentConfig config;
  private final GpuInventory inventory;
  private final Nvml nvml;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private volatile Duration nextDelay = Duration.ZERO;
  private @Nullable String cachedScore;
  private volatile @Nullable Map<String, ? extends List<MigProfile>> cachedMigProfiles;

  public NodeRegistrar(
      KubernetesClient client,
      NodeAgentConfig config,
      GpuInventory inventory,
      Nvml nvml,
      Clock clock,
      ScheduledExecutorService executor) {
    this.client = client;
    this.config = config;
    this.inventory = inventory;
    this.nvml = nvml;
    this.clock = clock;
    this.executor = executor;
    // A health change is published at once rather than at the next tick.
    inventory.addListener(this::publishSoon);
  }

  @Override
  protected void runOneIteration() {
    try {
      registerOnce();
      nextDelay = config.registerInterval();
    } catch (RuntimeException | NvmlException e) {
      log.warn(
          "node registration failed node={}, retrying in {}",
          config.nodeName(),
          config.registerErrorInterval(),
          e);
      nextDelay = config.registerErrorInterval();
    }
  }

  /** One pass: read the node, patch what differs. */
  public synchronized Outcome registerOnce() throws NvmlException {
    List<Gpu> gpus = inventory.snapshot();
    if (config.mode() == OperatingMode.MIG && cachedMigProfiles == null) {
      // The profiles a GPU offers do not change while MIG mode stays on; discover them once.
      cachedMigProfiles = MigProfiles.discover(config, nvml, gpus);
    }
    String register = NodeDeviceJson.encode(RegisterRecords.build(config, gpus, migProfiles()));
    String score = null;
    if (config.topologyScore()) {
      if (cachedScore == null) {
        // Links do not change while the agent runs; compute them once.
        cachedScore = TopologyScore.encode(gpus, TopologyScore.compute(nvml, gpus));
      }
      score = cachedScore;
    }
    String wantedScore = score;
    // Each attempt reads the node afresh: a conflict means it changed since the last read.
    return WriteRetry.DEFAULT.call(retry -> publish(register, wantedScore));
  }

  /** One attempt of {@link #registerOnce}, which holds the monitor: read the node, patch. */
  private Outcome publish(String register, @Nullable String score) {
    Node node = client.nodes().withName(config.nodeName()).get();
    if (node == null) {
      throw new IllegalStateException("node " + config.nodeName() + " not found");
    }
    Map<String, String> current =
        node.getMetadata().getAnnotations() == null
            ? Map.of()
            : node.getMetadata().getAnnotations();
    Map<String, @Nullable String> patch = new LinkedHashMap<>();
    if (!register.equals(current.get(Annotations.NODE_NVIDIA_REGISTER))) {
      patch.put(Annotations.NODE_NVIDIA_REGISTER, register);
    }
    // Allocate finds its pod among the node's pods in bind-phase allocating, lock or not.
    if (!"true".equals(current.get(Annotations.NODE_LOCK_FREE))) {
      patch.put(Annotations.NODE_LOCK_FREE, "true");
    }
    if (score != null && !score.equals(current.get(Annotations.NODE_NVIDIA_SCORE))) {
      patch.put(Annotations.NODE_NVIDIA_SCORE, score);
    }
    String handshake = current.get(Annotations.NODE_HANDSHAKE);
    if (config.answerHandshake()
        && handshake != null
        && !(Handshake.parse(handshake) instanceof Handshake.Reported)
        && allocatable(node) == 0) {
      patch.put(
          Annotations.NODE_HANDSHAKE,
          "Reported " + REPORTED.format(clock.instant().atZone(ZoneOffset.UTC)));
    }
    if (patch.isEmpty()) {
      return Outcome.UNCHANGED;
    }
    client
        .nodes()
        .resource(PatchTargets.node(config.nodeName()))
        .patch(PatchContext.of(PatchType.JSON_MERGE), AnnotationPatch.of(patch, null));
    log.info("node annotations patched node={} keys={}", config.nodeName(), patch.keySet());
    return Outcome.PATCHED;
  }

  /**
   * The node's allocatable count of our resource. While it is positive the kubelet registration
   * proves the agent alive, and HAMi's v2.8+ device plugin leaves the handshake to the scheduler:
   * answering then would only make a HAMi v2.10 scheduler write a new request every cycle.
   */
  private long allocatable(Node node) {
    if (node.getStatus() == null || node.getStatus().getAllocatable() == null) {
      return 0;
    }
    Quantity q = node.getStatus().getAllocatable().get(config.resourceName());
    if (q == null) {
      return 0;
    }
    try {
      return q.getNumericalAmount().longValue();
    } catch (ArithmeticException | IllegalArgumentException e) {
      return 0;
    }
  }

  /** The MIG profiles registered per GPU UUID; empty until the first registration in MIG mode. */
  public Map<String, ? extends List<MigProfile>> migProfiles() {
    Map<String, ? extends List<MigProfile>> m = cachedMigProfiles;
    return m == null ? Map.of() : m;
  }

  private void publishSoon() {
    if (isRunning()) {
      executor.execute(this::runOneIteration);
    }
  }

  @Override
  protected Scheduler scheduler() {
    return new CustomScheduler() {
      @Override
      protected Schedule getNextSchedule() {
        Duration d = Objects.requireNonNull(nextDelay);
        return new Schedule(d.toMillis(), TimeUnit.MILLISECONDS);
      }
    };
  }

  @Override
  protected ScheduledExecutorService executor() {
    return executor;
  }

  @Override
  protected String serviceName() {
    return "NodeRegistrar";
  }
}
