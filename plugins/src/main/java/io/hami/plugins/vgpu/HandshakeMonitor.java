package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.FrameworkHandle;
import io.hami.kube.AnnotationPatch;
import io.hami.kube.PatchTargets;
import io.hami.model.handshake.Handshake;
import io.hami.model.handshake.HandshakeCheck;
import io.hami.model.handshake.HealthVerdict;
import io.hami.plugins.metrics.GpuMetrics;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler side of the node handshake (protocol §3.2, v2.10 rules), run in the background
 * every period, never on the scheduling path.
 *
 * <p>For each node and vendor that registered devices and has a handshake key: a report (or no
 * value) is answered with {@code Requesting_<now>}; a {@code Requesting} stamp older than {@link
 * HandshakeCheck#EXPIRY} while the node's allocatable count of the vendor is 0 makes the vendor's
 * devices unhealthy on that node and removes the key (v2.10 clean-up). The node then stays
 * unhealthy, with a fresh request written each period, until its agent reports again or allocatable
 * turns positive: this scheduler's own request proves nothing about the agent.
 *
 * <p>Writes are JSON merge patches carrying the resourceVersion last seen, so a node changed
 * meanwhile (a report racing the request) is left alone until the next round; all of a node's keys
 * go in one patch, and a node is written at most once per period.
 */
public final class HandshakeMonitor {

  private static final Logger log = LoggerFactory.getLogger(HandshakeMonitor.class);

  /** A node's handshake state for one vendor, as the gauge reports it. */
  public enum State {
    /** No handshake value (a request follows). */
    ABSENT,
    /** The agent reported (a request follows). */
    REPORTED,
    /** A request is out and not yet expired. */
    REQUESTING,
    /** The request expired but the node's allocatable count keeps it healthy. */
    EXPIRED,
    /** The request expired with nothing allocatable: the vendor's devices are not offered. */
    UNHEALTHY;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Writes handshake annotations to a node. */
  @FunctionalInterface
  public interface Writer {
    /**
     * Merge-patches the annotations (a null value removes the key), guarded by {@code
     * resourceVersion}.
     *
     * @return false when the node changed since that version or is gone (retried next round)
     */
    boolean write(String node, String resourceVersion, Map<String, @Nullable String> annotations);
  }

  /** What the monitor keeps of a node: only what the handshake needs. */
  private record Seen(
      String resourceVersion,
      Map<String, String> handshakes,
      Map<String, Long> allocatable,
      Set<String> registered) {}

  private final List<GpuVendor> vendors;
  private final List<DeviceUsageIndex> indexes = new CopyOnWriteArrayList<>();
  private final InstantSource clock;
  private final ZoneId zone;
  private final Duration period;
  private final Writer writer;
  private final ConcurrentHashMap<String, Seen> nodes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Instant> lastWrite = new ConcurrentHashMap<>();

  /** {@code node + '\0' + vendor} pairs found unhealthy and not heard from since. */
  private final Set<String> cleaned = ConcurrentHashMap.newKeySet();

  private volatile Map<List<String>, Long> counts = Map.of();

  /** The executor {@link #started} made for this monitor; shut down by {@link #close}. */
  private volatile @Nullable ScheduledExecutorService owned;

  /**
   * @param vendors the vendors to check; those without a handshake key are skipped
   * @param clock current time
   * @param zone the zone of handshake stamps (the scheduler's local zone)
   * @param period how often a round runs; also the least time between two writes to a node
   * @param writer writes to the API
   */
  public HandshakeMonitor(
      List<GpuVendor> vendors, InstantSource clock, ZoneId zone, Duration period, Writer writer) {
    List<GpuVendor> v = new ArrayList<>();
    for (GpuVendor g : vendors) {
      if (!g.keys().handshake().isEmpty() && !g.keys().register().isEmpty()) {
        v.add(g);
      }
    }
    this.vendors = List.copyOf(v);
    this.clock = requireNonNull(clock, "clock");
    this.zone = requireNonNull(zone, "zone");
    this.period = requireNonNull(period, "period");
    this.writer = requireNonNull(writer, "writer");
  }

  /** Adds an index (one per profile) that withdraws the devices of unhealthy vendors. */
  public void addIndex(DeviceUsageIndex index) {
    indexes.add(requireNonNull(index, "index"));
    for (String pair : cleaned) {
      int z = pair.indexOf('\0');
      index.setVendorHealthy(pair.substring(0, z), pair.substring(z + 1), false);
    }
  }

  private void setHealthy(String node, String vendor, boolean healthy) {
    for (DeviceUsageIndex i : indexes) {
      i.setVendorHealthy(node, vendor, healthy);
    }
  }

  /**
   * A monitor that writes through {@code client}, counted in {@code metrics}, listening to the
   * handle's cluster events and running every {@code period} on a daemon thread while the handle's
   * scheduler leads.
   */
  // The periodic task logs its own failures and runs until close() shuts its executor down: its
  // future carries nothing to check.
  @SuppressWarnings("FutureReturnValueIgnored")
  static HandshakeMonitor started(
      KubernetesClient client,
      FrameworkHandle handle,
      List<GpuVendor> vendors,
      Duration period,
      GpuMetrics metrics) {
    Writer api = apiWriter(client);
    CounterDataPoint writes = metrics.handshakeWrites(handle.schedulerName());
    HandshakeMonitor m =
        new HandshakeMonitor(
            vendors,
            handle.clock(),
            ZoneId.systemDefault(),
            period,
            (node, rv, annotations) -> {
              writes.inc();
              return api.write(node, rv, annotations);
            });
    handle.addClusterStateListener(m.listener());
    metrics.addHandshakes(handle.schedulerName(), m::counts);
    ScheduledExecutorService ex =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hami-gpu-handshake");
              t.setDaemon(true);
              return t;
            });
    m.owned = ex;
    m.start(ex, handle::leading);
    return m;
  }

  /** Stops the rounds of a monitor made by {@link #started}; a round in progress is interrupted. */
  void close() {
    ScheduledExecutorService ex = owned;
    if (ex != null) {
      ex.shutdownNow();
    }
  }

  /** A writer that patches through the API client. */
  public static Writer apiWriter(KubernetesClient client) {
    return (node, rv, annotations) -> {
      String patch = AnnotationPatch.of(annotations, rv);
      try {
        client
            .nodes()
            .resource(PatchTargets.node(node))
            .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 || e.getCode() == 404) {
          return false;
        }
        throw e;
      }
    };
  }

  /**
   * Runs a round every period on {@code executor} while {@code active} says this replica schedules.
   */
  public ScheduledFuture<?> start(ScheduledExecutorService executor, BooleanSupplier active) {
    long ms = period.toMillis();
    return executor.scheduleWithFixedDelay(
        () -> {
          if (!active.getAsBoolean()) {
            return;
          }
          try {
            runOnce();
          } catch (RuntimeException e) {
            log.warn("handshake round failed error={}", e.toString());
          }
        },
        ms,
        ms,
        TimeUnit.MILLISECONDS);
  }

  /** The informer hook that keeps the monitor's view of nodes current. */
  public ClusterStateListener listener() {
    return new ClusterStateListener() {
      @Override
      public void onNodeAdd(Node node) {
        see(node);
      }

      @Override
      public void onNodeUpdate(Node oldNode, Node newNode) {
        see(newNode);
      }

      @Override
      public void onNodeDelete(Node node) {
        String name = node.getMetadata().getName();
        nodes.remove(name);
        lastWrite.remove(name);
        cleaned.removeIf(k -> k.startsWith(name + '\0'));
      }
    };
  }

  private void see(Node node) {
    String name = node.getMetadata().getName();
    Map<String, String> annos = node.getMetadata().getAnnotations();
    if (annos == null) {
      annos = Map.of();
    }
    Map<String, String> hs = new HashMap<>();
    Map<String, Long> alloc = new HashMap<>();
    Set<String> reg = new HashSet<>();
    for (GpuVendor v : vendors) {
      if (!annos.containsKey(v.keys().register())) {
        continue;
      }
      reg.add(v.word());
      String h = annos.get(v.keys().handshake());
      if (h != null) {
        hs.put(v.keys().handshake(), h);
      }
      alloc.put(v.word(), Math.max(0, ModelReaders.allocatable(node, v.names().count())));
      // An answer (or a device plugin back in kubelet) brings a cleaned vendor back at once.
      if (cleaned.contains(name + '\0' + v.word())
          && ((h != null && Handshake.parse(h) instanceof Handshake.Reported)
              || alloc.get(v.word()) > 0)) {
        cleaned.remove(name + '\0' + v.word());
        setHealthy(name, v.word(), true);
        log.info("node handshake answered node={} vendor={}", name, v.word());
      }
    }
    if (reg.isEmpty()) {
      nodes.remove(name);
      return;
    }
    String rv = node.getMetadata().getResourceVersion();
    nodes.put(
        name, new Seen(rv == null ? "" : rv, Map.copyOf(hs), Map.copyOf(alloc), Set.copyOf(reg)));
  }

  /** Node counts by {@code [state, vendor]} after the last round. */
  public Map<List<String>, Long> counts() {
    return counts;
  }

  /** The state of one node's vendor after the last round, or null when not checked. */
  public @Nullable State state(String node, String vendor) {
    return states.get(node + '\0' + vendor);
  }

  private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();

  /** One round over every known node. */
  public void runOnce() {
    Instant now = clock.instant();
    LocalDateTime local = LocalDateTime.ofInstant(now, zone);
    Map<List<String>, Long> tally = new HashMap<>();
    states.keySet().removeIf(k -> !nodes.containsKey(k.substring(0, k.indexOf('\0'))));
    for (Map.Entry<String, Seen> e : nodes.entrySet()) {
      String node = e.getKey();
      Seen seen = e.getValue();
      Map<String, @Nullable String> writes = new LinkedHashMap<>();
      for (GpuVendor v : vendors) {
        if (!seen.registered().contains(v.word())) {
          continue;
        }
        String key = v.keys().handshake();
        String value = seen.handshakes().get(key);
        long alloc = seen.allocatable().getOrDefault(v.word(), 0L);
        State state = check(node, v, key, value, alloc, local, writes);
        states.put(node + '\0' + v.word(), state);
        tally.merge(List.of(state.label(), v.word()), 1L, Long::sum);
      }
      if (!writes.isEmpty()) {
        write(node, seen.resourceVersion(), writes, now);
      }
    }
    counts = Map.copyOf(tally);
  }

  private State check(
      String node,
      GpuVendor v,
      String key,
      @Nullable String value,
      long alloc,
      LocalDateTime now,
      Map<String, @Nullable String> writes) {
    Handshake h = value == null ? null : Handshake.parse(value);
    String pair = node + '\0' + v.word();
    if (cleaned.contains(pair)) {
      // Still unheard from: keep asking, stay unhealthy.
      if (!(h instanceof Handshake.Requesting r) || r.time().isEmpty() || expired(r, now)) {
        writes.put(key, Handshake.requesting(now));
      }
      return State.UNHEALTHY;
    }
    HealthVerdict verdict = HandshakeCheck.check(Optional.ofNullable(value), now, alloc);
    switch (verdict.action()) {
      case REQUEST -> {
        writes.put(key, Handshake.requesting(now));
        return h == null ? State.ABSENT : State.REPORTED;
      }
      case CLEAN_UP -> {
        cleaned.add(pair);
        setHealthy(node, v.word(), false);
        writes.put(key, null);
        log.warn(
            "node handshake unanswered, devices withdrawn node={} vendor={} value={}",
            node,
            v.word(),
            value);
        return State.UNHEALTHY;
      }
      default -> {
        if (h instanceof Handshake.Requesting r && r.time().isPresent() && expired(r, now)) {
          return State.EXPIRED;
        }
        return State.REQUESTING;
      }
    }
  }

  private static boolean expired(Handshake.Requesting r, LocalDateTime now) {
    return !now.isBefore(r.time().orElseThrow().plus(HandshakeCheck.EXPIRY));
  }

  private void write(String node, String rv, Map<String, @Nullable String> writes, Instant now) {
    Instant last = lastWrite.get(node);
    if (last != null && now.isBefore(last.plus(period))) {
      return;
    }
    lastWrite.put(node, now);
    try {
      if (!writer.write(node, rv, writes)) {
        log.debug("handshake write skipped, node changed node={}", node);
      }
    } catch (RuntimeException ex) {
      log.warn("handshake write failed node={} error={}", node, ex.toString());
    }
  }
}
