package io.hami.nodeagent.monitor;

import io.fabric8.kubernetes.api.model.Pod;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor's decisions as metrics, read from its latest period when scraped: {@code
 * hami_container_utilization_switch}, {@code hami_container_priority_blocked}, {@code
 * hami_container_priority_blocked_seconds_total} and {@code hami_container_slots_reclaimed_total}.
 * A container whose pod is not (yet) listed is labelled with its pod UID and an empty namespace.
 */
public final class MonitorMetrics {
  private static final Logger log = LoggerFactory.getLogger(MonitorMetrics.class);

  private final Monitor monitor;
  private final Supplier<List<Pod>> pods;

  public MonitorMetrics(Monitor monitor, Supplier<List<Pod>> pods) {
    this.monitor = monitor;
    this.pods = pods;
  }

  public void register(PrometheusRegistry registry) {
    GaugeWithCallback.builder()
        .name("hami_container_utilization_switch")
        .help(
            "1 when the container shares a GPU and its SM limit applies (policy default), 0 when"
                + " it is alone and the monitor lifted the limit")
        .labelNames("namespace", "pod", "container")
        .callback(
            cb -> {
              Map<String, Pod> byUid = podsByUid();
              for (ContainerStatus s : monitor.statuses()) {
                String[] l = labels(byUid, s);
                cb.call(s.utilizationSwitch(), l[0], l[1], s.container());
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("hami_container_priority_blocked")
        .help("1 while the container's launches are held back for higher-priority work")
        .labelNames("namespace", "pod", "container", "priority")
        .callback(
            cb -> {
              Map<String, Pod> byUid = podsByUid();
              for (ContainerStatus s : monitor.statuses()) {
                String[] l = labels(byUid, s);
                cb.call(
                    s.blocked() ? 1 : 0, l[0], l[1], s.container(), Integer.toString(s.priority()));
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("hami_container_priority_blocked_seconds")
        .help("Time the container's launches were held back for higher-priority work")
        .labelNames("namespace", "pod", "container", "priority")
        .callback(
            cb -> {
              Map<String, Pod> byUid = podsByUid();
              for (ContainerStatus s : monitor.statuses()) {
                String[] l = labels(byUid, s);
                cb.call(
                    s.blockedSeconds(), l[0], l[1], s.container(), Integer.toString(s.priority()));
              }
            })
        .register(registry);
    CounterWithCallback.builder()
        .name("hami_container_slots_reclaimed")
        .help(
            "Slots of the container's dead processes the monitor freed, so that their memory"
                + " stops counting")
        .labelNames("namespace", "pod", "container")
        .callback(
            cb -> {
              Map<String, Pod> byUid = podsByUid();
              for (ContainerStatus s : monitor.statuses()) {
                String[] l = labels(byUid, s);
                cb.call(s.slotsReclaimed(), l[0], l[1], s.container());
              }
            })
        .register(registry);
  }

  private Map<String, Pod> podsByUid() {
    Map<String, Pod> byUid = new HashMap<>();
    try {
      for (Pod p : pods.get()) {
        byUid.put(p.getMetadata().getUid(), p);
      }
    } catch (RuntimeException e) {
      log.debug("cannot list pods for monitor metrics: {}", e.toString());
    }
    return byUid;
  }

  private static String[] labels(Map<String, Pod> byUid, ContainerStatus s) {
    Pod p = byUid.get(s.podUid());
    return p == null
        ? new String[] {"", s.podUid()}
        : new String[] {p.getMetadata().getNamespace(), p.getMetadata().getName()};
  }
}
