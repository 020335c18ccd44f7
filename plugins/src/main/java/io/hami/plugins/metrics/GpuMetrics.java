package io.hami.plugins.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The GPU plugins' metrics in the scheduler's registry (served on {@code /metrics}). Every series
 * carries the {@code profile} label: each profile has its own device index and node lock. One
 * instance per registry, shared by the profiles; thread-safe.
 *
 * <ul>
 *   <li>{@code hami_scheduler_gpu_unreadable_nodes{vendor,profile}}: nodes whose device annotations
 *       do not parse now (they offer no devices).
 *   <li>{@code hami_scheduler_gpu_annotation_parse_failures_total{vendor,field,profile}}: times a
 *       node's annotations turned unreadable, by the annotation field at fault.
 *   <li>{@code hami_scheduler_gpu_fit_failures_total{reason,profile}}: Filter rejections of a node
 *       by HAMi reason code (one pod rejected by three nodes for memory counts three; a verdict the
 *       framework reuses for a pod of the same class on an unchanged node is not counted again).
 *   <li>{@code hami_scheduler_gpu_node_handshake{state,vendor,profile}}: nodes by handshake state.
 *   <li>{@code hami_scheduler_gpu_handshake_writes_total{profile}}: handshake patches sent to nodes
 *       (per node and period, whatever the pods do).
 *   <li>{@code hami_scheduler_node_locks_broken_total{cause,profile}}: stale locks taken over.
 *   <li>{@code hami_scheduler_node_lock_held_total{holder,profile}}: lock attempts that found the
 *       node locked, by another pod of this scheduler (Permit) or by someone else (the node's
 *       lock).
 *   <li>{@code hami_scheduler_node_lock_permit_waits_total{profile}} and {@code
 *       hami_scheduler_node_lock_permit_wait_duration_seconds{result,profile}}: pods queued at
 *       Permit behind a node's lock holder, and how long they waited.
 * </ul>
 */
public final class GpuMetrics {

  /** Counts of nodes, each keyed by its label values (without the profile). */
  @FunctionalInterface
  public interface NodeCounts {
    Map<List<String>, Long> counts();
  }

  private record Source(String profile, Supplier<Map<List<String>, Long>> counts) {}

  private static final double[] WAIT_BUCKETS = {
    0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300
  };

  // Weak values too: the metrics' sources reach back to the scheduler and so to its registry; the
  // registry's own callbacks keep the metrics alive while it is in use.

  private final Counter parseFailures;
  private final List<FitSource> fitSources = new CopyOnWriteArrayList<>();
  private final Counter locksBroken;
  private final Counter lockHeld;
  private final Counter permitWaits;
  private final Histogram permitWait;
  private final Counter handshakeWrites;
  private final List<Source> unreadable = new CopyOnWriteArrayList<>();
  private final List<Source> handshakes = new CopyOnWriteArrayList<>();

  /** Registers the metrics on {@code registry}; once per registry (two would clash). */
  public GpuMetrics(PrometheusRegistry registry) {
    parseFailures =
        Counter.builder()
            .name("hami_scheduler_gpu_annotation_parse_failures_total")
            .help(
                "Times a node's device annotations turned unreadable, by vendor and annotation field.")
            .labelNames("vendor", "field", "profile")
            .register(registry);
    // Filter runs for every node of every cycle: it counts in plain adders, read at scrape time.
    CounterWithCallback.builder()
        .name("hami_scheduler_gpu_fit_failures_total")
        .help("Filter evaluations that rejected a node for a GPU pod, by HAMi reason code.")
        .labelNames("reason", "profile")
        .callback(
            cb -> {
              for (FitSource f : fitSources) {
                for (int i = 0; i < f.codes().size(); i++) {
                  long n = f.counts().get(i).sum();
                  if (n != 0) {
                    cb.call((double) n, f.codes().get(i), f.profile());
                  }
                }
              }
            })
        .register(registry);
    locksBroken =
        Counter.builder()
            .name("hami_scheduler_node_locks_broken_total")
            .help("Stale node locks taken over, by cause.")
            .labelNames("cause", "profile")
            .register(registry);
    lockHeld =
        Counter.builder()
            .name("hami_scheduler_node_lock_held_total")
            .help(
                "Node lock attempts that found the lock held: by a pod of this scheduler (permit) or on the node (node).")
            .labelNames("holder", "profile")
            .register(registry);
    permitWaits =
        Counter.builder()
            .name("hami_scheduler_node_lock_permit_waits_total")
            .help("Pods that waited at Permit for a node's lock.")
            .labelNames("profile")
            .register(registry);
    permitWait =
        Histogram.builder()
            .name("hami_scheduler_node_lock_permit_wait_duration_seconds")
            .help(
                "How long pods waited at Permit for a node's lock, by outcome (allowed, rejected).")
            .labelNames("result", "profile")
            .classicUpperBounds(WAIT_BUCKETS)
            .classicOnly()
            .register(registry);
    handshakeWrites =
        Counter.builder()
            .name("hami_scheduler_gpu_handshake_writes_total")
            .help("Handshake patches sent to nodes.")
            .labelNames("profile")
            .register(registry);
    GaugeWithCallback.builder()
        .name("hami_scheduler_gpu_unreadable_nodes")
        .help(
            "Nodes whose device annotations cannot be read now, by vendor; they offer no devices.")
        .labelNames("vendor", "profile")
        .callback(cb -> report(unreadable, (labels, v) -> cb.call(v, labels)))
        .register(registry);
    GaugeWithCallback.builder()
        .name("hami_scheduler_gpu_node_handshake")
        .help(
            "Nodes by handshake state (absent, reported, requesting, expired, unhealthy) and vendor.")
        .labelNames("state", "vendor", "profile")
        .callback(cb -> report(handshakes, (labels, v) -> cb.call(v, labels)))
        .register(registry);
  }

  private interface Sink {
    void accept(String[] labels, double value);
  }

  private static void report(List<Source> sources, Sink sink) {
    for (Source s : sources) {
      s.counts()
          .get()
          .forEach(
              (labels, n) -> {
                String[] all = labels.toArray(new String[labels.size() + 1]);
                all[labels.size()] = s.profile();
                sink.accept(all, n);
              });
    }
  }

  /** Counts one node turning unreadable. */
  public void parseFailure(String vendor, String field, String profile) {
    parseFailures.labelValues(vendor, field, profile).inc();
  }

  private record FitSource(String profile, List<String> codes, List<LongAdder> counts) {}

  /**
   * Adders for a profile's fit failures, one per reason code (same order as {@code codes}); the
   * caller increments them on the hot path, the registry sums them on scrape.
   */
  public LongAdder[] fitFailures(String profile, String[] codes) {
    LongAdder[] counts = new LongAdder[codes.length];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
    fitSources.add(new FitSource(profile, List.of(codes), List.of(counts)));
    return counts;
  }

  /** The counter of one stale-lock cause. */
  public CounterDataPoint lockBroken(String cause, String profile) {
    return locksBroken.labelValues(cause, profile);
  }

  /**
   * The counter of lock attempts that met a held lock; holder is {@code permit} or {@code node}.
   */
  public CounterDataPoint lockHeld(String holder, String profile) {
    return lockHeld.labelValues(holder, profile);
  }

  public CounterDataPoint handshakeWrites(String profile) {
    return handshakeWrites.labelValues(profile);
  }

  public CounterDataPoint permitWaits(String profile) {
    return permitWaits.labelValues(profile);
  }

  /** The Permit wait histogram for one outcome ({@code allowed} or {@code rejected}). */
  public DistributionDataPoint permitWait(String result, String profile) {
    return permitWait.labelValues(result, profile);
  }

  /** Adds a profile's unreadable-node counts, keyed by {@code [vendor]}. */
  public void addUnreadableNodes(String profile, NodeCounts counts) {
    unreadable.add(new Source(profile, counts::counts));
  }

  /** Adds a profile's handshake counts, keyed by {@code [state, vendor]}. */
  public void addHandshakes(String profile, NodeCounts counts) {
    handshakes.add(new Source(profile, counts::counts));
  }
}
