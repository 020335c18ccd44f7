package io.hami.framework.runtime;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

/**
 * The scheduler's Prometheus metrics. Thread-safe. Data points are resolved once per label set and
 * reused, so recording costs one map lookup at most.
 */
public final class SchedulerMetrics {
  private static final double[] LATENCY_BUCKETS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    30, 60
  };

  private final PrometheusRegistry registry;
  private final Counter attempts;
  private final Histogram attemptDuration;
  private final Histogram e2eDuration;
  private final Histogram extensionPointDuration;
  private final Histogram pluginDuration;
  private final Histogram bindingDuration;
  private final Counter apiRequests;
  private final Counter events;
  private final Counter informerReplacements;
  private final ConcurrentMap<String, DistributionDataPoint> points = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, CounterDataPoint> counters = new ConcurrentHashMap<>();

  public SchedulerMetrics(PrometheusRegistry registry) {
    this.registry = registry;
    attempts =
        Counter.builder()
            .name("hami_scheduler_schedule_attempts_total")
            .help("Scheduling attempts by result (scheduled, unschedulable, error) and profile.")
            .labelNames("result", "profile")
            .build();
    attemptDuration =
        latency(
            "hami_scheduler_scheduling_attempt_duration_seconds",
            "Decision latency: from pop to the end of the scheduling cycle.",
            "result",
            "profile");
    e2eDuration =
        latency(
            "hami_scheduler_pod_scheduling_sli_duration_seconds",
            "From the pod's first enqueue to its successful binding, across attempts.",
            "profile");
    extensionPointDuration =
        latency(
            "hami_scheduler_framework_extension_point_duration_seconds",
            "Time spent in each extension point, all plugins together.",
            "extension_point",
            "status",
            "profile");
    pluginDuration =
        latency(
            "hami_scheduler_plugin_execution_duration_seconds",
            "Time spent in each plugin per extension point (sampled cycles).",
            "plugin",
            "extension_point",
            "status");
    bindingDuration =
        latency(
            "hami_scheduler_binding_duration_seconds",
            "Binding cycle latency: Permit wait, PreBind, Bind and PostBind.",
            "result");
    apiRequests =
        Counter.builder()
            .name("hami_scheduler_api_requests_total")
            .help("Requests the scheduler made to the API server, by verb, resource and outcome.")
            .labelNames("verb", "resource", "outcome")
            .build();
    events =
        Counter.builder()
            .name("hami_scheduler_cluster_events_total")
            .help("Cluster events handled, by label.")
            .labelNames("event")
            .build();
    informerReplacements =
        Counter.builder()
            .name("hami_scheduler_informer_replacements_total")
            .help(
                "Informers replaced because their watch was lost (stopped, not-watching, silent),"
                    + " by informer and cause.")
            .labelNames("informer", "cause")
            .build();
    registry.register(attempts);
    registry.register(attemptDuration);
    registry.register(e2eDuration);
    registry.register(extensionPointDuration);
    registry.register(pluginDuration);
    registry.register(bindingDuration);
    registry.register(apiRequests);
    registry.register(events);
    registry.register(informerReplacements);
  }

  /** A latency histogram in seconds with the shared buckets. */
  private static Histogram latency(String name, String help, String... labels) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .classicUpperBounds(LATENCY_BUCKETS)
        .classicOnly()
        .build();
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  public void attempt(String result, String profile, long nanos) {
    counter(attempts, "a", result, profile).inc();
    dist(attemptDuration, "d", result, profile).observe(nanos / 1e9);
  }

  public void podScheduled(String profile, long nanosSinceFirstEnqueue) {
    dist(e2eDuration, "e", profile).observe(nanosSinceFirstEnqueue / 1e9);
  }

  public void extensionPoint(String point, String status, String profile, long nanos) {
    dist(extensionPointDuration, "x", point, status, profile).observe(nanos / 1e9);
  }

  public void plugin(String plugin, String point, String status, long nanos) {
    dist(pluginDuration, "p", plugin, point, status).observe(nanos / 1e9);
  }

  public void binding(String result, long nanos) {
    dist(bindingDuration, "b", result).observe(nanos / 1e9);
  }

  public void apiRequest(String verb, String resource, String outcome) {
    counter(apiRequests, "r", verb, resource, outcome).inc();
  }

  public void informerReplaced(String informer, String cause) {
    counter(informerReplacements, "i", informer, cause).inc();
  }

  public void clusterEvent(String label) {
    counter(events, "c", label).inc();
  }

  /** Registers a gauge whose value is read on each scrape. */
  public void gauge(
      String name, String help, String[] labelNames, Consumer<GaugeWithCallback.Callback> cb) {
    registry.register(
        GaugeWithCallback.builder()
            .name(name)
            .help(help)
            .labelNames(labelNames)
            .callback(cb)
            .build());
  }

  /** Registers a counter whose value is read on each scrape. */
  public void counterCallback(
      String name, String help, String[] labelNames, Consumer<CounterWithCallback.Callback> cb) {
    registry.register(
        CounterWithCallback.builder()
            .name(name)
            .help(help)
            .labelNames(labelNames)
            .callback(cb)
            .build());
  }

  private DistributionDataPoint dist(Histogram h, String prefix, String... labels) {
    String key = prefix + '\0' + String.join("\0", labels);
    DistributionDataPoint p = points.get(key);
    if (p == null) {
      p = points.computeIfAbsent(key, k -> h.labelValues(labels));
    }
    return p;
  }

  private CounterDataPoint counter(Counter c, String prefix, String... labels) {
    String key = prefix + '\0' + String.join("\0", labels);
    CounterDataPoint p = counters.get(key);
    if (p == null) {
      p = counters.computeIfAbsent(key, k -> c.labelValues(labels));
    }
    return p;
  }
}
