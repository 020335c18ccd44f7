package io.hami.cmd.bench;

import io.hami.framework.runtime.ClientRequestMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A bench phase's figures from the scheduler's metrics: request counts, means, per-pod rates. */
final class PhaseFigures {
  static final String REQUESTS = ClientRequestMetrics.NAME;

  /** Node handshake patches: per node and period, not per pod, so not on the binding path. */
  static final String HANDSHAKE_WRITES = "hami_scheduler_gpu_handshake_writes_total";

  /** kube-scheduler's client requests, by HTTP method only ({@code code, host, method}). */
  static final String KUBE_REQUESTS = "rest_client_requests_total";

  /** The API server's requests, by verb and resource (every client together). */
  static final String APISERVER_REQUESTS = "apiserver_request_total";

  /** The process's CPU time, in both schedulers' metrics. */
  static final String CPU_SECONDS = "process_cpu_seconds_total";

  /**
   * Time the JVM's compiler threads spent compiling (the CompilationMXBean's total): how much of a
   * phase still went to JIT warm-up.
   */
  static final String JIT_SECONDS = "jvm_compilation_time_seconds_total";

  /** kube-scheduler's heap in use. */
  static final String KUBE_HEAP = "go_memstats_heap_alloc_bytes";

  /** What kube-scheduler's requests count as when the resource is unknown. */
  static final String ANY_RESOURCE = "*";

  private PhaseFigures() {}

  /** The client verb of an HTTP method, as our counter names it. */
  static String verbOf(String method) {
    return switch (method.toUpperCase(Locale.ROOT)) {
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      case "GET" -> "get";
      default -> method.toLowerCase(Locale.ROOT);
    };
  }

  /**
   * kube-scheduler's requests between two scrapes, as {@code "verb *"}: its counter knows the HTTP
   * method, not the resource.
   */
  static Map<String, Double> kubeRequestDelta(PromText before, PromText after) {
    Map<String, Double> out = new HashMap<>();
    for (var e : List.of(Map.entry(after, 1), Map.entry(before, -1))) {
      for (PromText.Sample s : e.getKey().samples()) {
        String method = s.labels().get("method");
        if (s.name().equals(KUBE_REQUESTS) && method != null) {
          out.merge(verbOf(method) + " " + ANY_RESOURCE, e.getValue() * s.value(), Double::sum);
        }
      }
    }
    out.values().removeIf(v -> v <= 0);
    return out;
  }

  /**
   * Moves the Events that the API server counted between two of its scrapes out of {@code "verb *"}
   * into {@code "verb events"}, so that kube-scheduler's binding-path writes leave them out as ours
   * do; valid while kube-scheduler is the only client that writes Events.
   */
  static void splitEvents(Map<String, Double> requests, PromText apiBefore, PromText apiAfter) {
    Map<String, Double> events = new HashMap<>();
    for (var e : List.of(Map.entry(apiAfter, 1), Map.entry(apiBefore, -1))) {
      for (PromText.Sample s : e.getKey().samples()) {
        String verb = s.labels().get("verb");
        if (s.name().equals(APISERVER_REQUESTS)
            && "events".equals(s.labels().get("resource"))
            && verb != null) {
          events.merge(verbOf(verb), e.getValue() * s.value(), Double::sum);
        }
      }
    }
    events.forEach((verb, n) -> moveToEvents(requests, verb, n));
  }

  /**
   * Moves {@code n} requests of {@code verb} out of {@code "verb *"} into {@code "verb events"}:
   * kube-scheduler's client counts requests by method only.
   */
  static void moveToEvents(Map<String, Double> requests, String verb, double n) {
    Double all = requests.get(verb + " " + ANY_RESOURCE);
    if (n > 0 && all != null) {
      double moved = Math.min(n, all);
      requests.put(verb + " events", moved);
      requests.put(verb + " " + ANY_RESOURCE, all - moved);
    }
    requests.values().removeIf(v -> v <= 0);
  }

  /** kube-scheduler's own view of the phase: attempts by result, mean cycle time. */
  static Map<String, Double> kubeInternals(PromText before, PromText after) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String result : List.of("scheduled", "unschedulable", "error")) {
      String m = "scheduler_schedule_attempts_total";
      out.put(
          "attempts." + result,
          after.sum(m, l -> result.equals(l.get("result")))
              - before.sum(m, l -> result.equals(l.get("result"))));
    }
    mean(out, "cycleMeanMs", "scheduler_scheduling_attempt_duration_seconds", before, after);
    mean(out, "podE2eMeanMs", "scheduler_pod_scheduling_sli_duration_seconds", before, after);
    return out;
  }

  /** Requests counted so far, by {@code "verb resource"}. */
  static Map<String, Double> counts(PrometheusRegistry registry) {
    Map<String, Double> out = new HashMap<>();
    for (var s : registry.scrape()) {
      if (s instanceof CounterSnapshot c) {
        for (var d : c.getDataPoints()) {
          out.merge(
              d.getLabels().get("verb") + " " + d.getLabels().get("resource"),
              d.getValue(),
              Double::sum);
        }
      }
    }
    return out;
  }

  /** The scheduler's own view of the phase: attempts by result, mean cycle and binding times. */
  static Map<String, Double> internals(PromText before, PromText after) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String result : List.of("scheduled", "unschedulable", "error")) {
      String m = "hami_scheduler_schedule_attempts_total";
      out.put(
          "attempts." + result,
          after.sum(m, l -> result.equals(l.get("result")))
              - before.sum(m, l -> result.equals(l.get("result"))));
    }
    String points = "hami_scheduler_framework_extension_point_duration_seconds_count";
    out.put("handshakeWrites", after.sum(HANDSHAKE_WRITES) - before.sum(HANDSHAKE_WRITES));
    out.put("jitSeconds", after.sum(JIT_SECONDS) - before.sum(JIT_SECONDS));
    out.put(
        "permitWaits",
        after.sum(
                points,
                l -> "Permit".equals(l.get("extension_point")) && "WAIT".equals(l.get("status")))
            - before.sum(
                points,
                l -> "Permit".equals(l.get("extension_point")) && "WAIT".equals(l.get("status"))));
    mean(
        out,
        "permitWaitMeanMs",
        "hami_scheduler_node_lock_permit_wait_duration_seconds",
        before,
        after);
    mean(out, "cycleMeanMs", "hami_scheduler_scheduling_attempt_duration_seconds", before, after);
    mean(out, "bindingMeanMs", "hami_scheduler_binding_duration_seconds", before, after);
    mean(out, "podE2eMeanMs", "hami_scheduler_pod_scheduling_sli_duration_seconds", before, after);
    return out;
  }

  private static void mean(
      Map<String, Double> out, String key, String histogram, PromText before, PromText after) {
    double count = after.sum(histogram + "_count") - before.sum(histogram + "_count");
    double sum = after.sum(histogram + "_sum") - before.sum(histogram + "_sum");
    if (count > 0) {
      out.put(key, sum / count * 1000);
    }
  }

  /** Requests made between two scrapes, by {@code "verb resource"}. */
  static Map<String, Double> requestDelta(PromText before, PromText after) {
    Map<String, Double> out = new HashMap<>();
    addRequests(out, after, 1);
    addRequests(out, before, -1);
    out.values().removeIf(v -> v <= 0);
    return out;
  }

  private static void addRequests(Map<String, Double> out, PromText scrape, int sign) {
    for (PromText.Sample s : scrape.samples()) {
      if (s.name().equals(REQUESTS)) {
        out.merge(
            s.labels().get("verb") + " " + s.labels().get("resource"),
            sign * s.value(),
            Double::sum);
      }
    }
  }

  static BenchReport.Phase phase(
      String name,
      BindTracker tracker,
      Map<String, Double> requests,
      double handshakeWrites,
      @Nullable Double cpu,
      @Nullable Stats heap,
      Map<String, Double> internals) {
    long start = tracker.measuredFrom();
    long[] binds = tracker.bindTimes();
    long last = start;
    for (long t : binds) {
      last = Math.max(last, t);
    }
    double seconds = Math.max(1e-9, (last - start) / 1e9);
    int bound = binds.length;
    Map<String, Double> perPod = new TreeMap<>();
    double writes = 0;
    double events = 0;
    for (var e : requests.entrySet()) {
      double v = bound == 0 ? 0 : e.getValue() / bound;
      perPod.put(e.getKey(), v);
      if (BenchReport.isWrite(e.getKey())) {
        writes += v;
        if (e.getKey().endsWith(" events")) {
          events += v;
        }
      }
    }
    return new BenchReport.Phase(
        name,
        tracker.createdCount(),
        bound,
        seconds,
        bound / seconds,
        Stats.of(Stats.perSecond(binds, start)),
        Stats.of(tracker.latenciesMs()),
        perPod,
        writes,
        writes - events - (bound == 0 ? 0 : handshakeWrites / bound),
        cpu,
        heap,
        internals,
        tracker.createdPerSecond());
  }
}
