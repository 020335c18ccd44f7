package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FrameworkHandle;
import io.hami.model.Annotations;
import io.hami.plugins.metrics.GpuMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.ZoneId;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the GPU plugins of one scheduler share: the device usage index of each profile, the metrics
 * of each registry served, and one node handshake per API client. Made once per scheduler (as
 * {@code GpuPlugins.registrations()} does) and handed to the plugin factories; nothing is static,
 * so schedulers built side by side in one JVM (tests, the simulator) never see each other's state,
 * and the handshake's thread ends when the last plugin using it closes.
 *
 * <p>Thread-safe: profiles may be built concurrently.
 */
public final class SharedGpuState {

  private static final Logger log = LoggerFactory.getLogger(SharedGpuState.class);

  @GuardedBy("this")
  private final IdentityHashMap<FrameworkHandle, DeviceUsageIndex> indexes =
      new IdentityHashMap<>();

  @GuardedBy("this")
  private final IdentityHashMap<PrometheusRegistry, GpuMetrics> metrics = new IdentityHashMap<>();

  @GuardedBy("this")
  private final IdentityHashMap<KubernetesClient, HandshakeMonitor> handshakes =
      new IdentityHashMap<>();

  /** The plugins using each handshake; it stops when the last one closes. */
  @GuardedBy("this")
  private final IdentityHashMap<KubernetesClient, Integer> handshakeUsers = new IdentityHashMap<>();

  /**
   * The index of a profile, created on first use and fed by the profile's cluster events. Every
   * plugin of the profile gets the same instance; call it from a plugin factory so that the initial
   * listing is delivered.
   */
  public synchronized DeviceUsageIndex index(FrameworkHandle handle) {
    DeviceUsageIndex index = indexes.get(handle);
    if (index == null) {
      index = newIndex(handle, metrics(handle));
      indexes.put(handle, index);
    }
    return index;
  }

  /** A new index fed by the profile's cluster events, reading the default vendors to begin with. */
  private static DeviceUsageIndex newIndex(FrameworkHandle handle, GpuMetrics metrics) {
    AtomicReference<ImmutableList<GpuVendor>> vendors =
        new AtomicReference<>(GpuVendors.accounted());
    ZoneId zone = ZoneId.systemDefault();
    PodAnnotationWarnings podWarnings = new PodAnnotationWarnings(handle.eventRecorder());
    ModelReaders.UnreadableAllocation unreadable =
        (pod, key, value, error) ->
            podWarnings.warn(
                pod,
                key,
                value,
                error,
                "its devices on node "
                    + pod.getMetadata().getAnnotations().get(Annotations.VGPU_NODE)
                    + " are not counted, so they may be given to other pods");
    DeviceUsageIndex index =
        new DeviceUsageIndex(
            node ->
                ModelReaders.readNode(node, requireNonNull(vendors.get()), handle.clock(), zone),
            pod -> ModelReaders.readPod(pod, requireNonNull(vendors.get()), unreadable),
            (node, r) -> reportUnreadable(handle, metrics, node, r),
            ModelReaders.registrationKeys(requireNonNull(vendors.get())));
    index.wire(vendors, handle::nodeStateChanged);
    handle.addClusterStateListener(index.listener());
    metrics.addUnreadableNodes(handle.schedulerName(), index::unreadableByVendor);
    return index;
  }

  private static void reportUnreadable(
      FrameworkHandle handle, GpuMetrics metrics, Node node, DeviceUsageIndex.Registered r) {
    String message = String.valueOf(r.invalid());
    log.warn(
        "node device annotations unreadable node={} vendor={} field={} error={}",
        node.getMetadata().getName(),
        r.invalidVendor(),
        r.invalidField(),
        message);
    metrics.parseFailure(r.invalidVendor(), r.invalidField(), handle.schedulerName());
    handle
        .eventRecorder()
        .record(
            node,
            EventRecorder.Type.WARNING,
            "InvalidDeviceAnnotation",
            "Scheduling",
            "device annotations cannot be read, node skipped for GPU pods: " + message);
  }

  /**
   * {@link #index(FrameworkHandle)}, also reading the given vendors' registrations and allocations
   * (a plugin that places more vendors than the defaults calls this from its factory, before the
   * informers deliver anything).
   */
  public DeviceUsageIndex index(FrameworkHandle handle, List<GpuVendor> vendors) {
    DeviceUsageIndex index = index(handle);
    index.addVendors(vendors);
    return index;
  }

  /** The metrics of the registry the handle's scheduler serves, registered on first use. */
  public GpuMetrics metrics(FrameworkHandle handle) {
    return metrics(handle.metricsRegistry());
  }

  /** The metrics of {@code registry}, registered on first use. */
  public synchronized GpuMetrics metrics(PrometheusRegistry registry) {
    return metrics.computeIfAbsent(registry, GpuMetrics::new);
  }

  /**
   * The handshake of {@code client}, started by {@code start} on first use (the profiles share it).
   * Each call takes a reference that {@link #releaseHandshake} gives back; the last one stops it.
   */
  synchronized HandshakeMonitor handshake(
      KubernetesClient client, Supplier<HandshakeMonitor> start) {
    HandshakeMonitor m = handshakes.computeIfAbsent(client, c -> start.get());
    handshakeUsers.merge(client, 1, Integer::sum);
    return m;
  }

  /** Gives back a reference {@link #handshake} took; the last one stops the monitor. */
  synchronized void releaseHandshake(KubernetesClient client) {
    Integer users = handshakeUsers.get(client);
    if (users == null) {
      return;
    }
    if (users > 1) {
      handshakeUsers.put(client, users - 1);
      return;
    }
    handshakeUsers.remove(client);
    HandshakeMonitor m = handshakes.remove(client);
    if (m != null) {
      m.close();
    }
  }
}
