package io.hami.plugins.vgpu;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.FrameworkHandle;
import io.hami.plugins.metrics.GpuMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the GPU plugins of one scheduler share: the device usage index of each profile, the metrics
 * of each registry served, and one node handshake per API client. Made once per scheduler (as
 * {@code GpuPlugins.registrations()} does) and handed to the plugin factories; nothing is static, so
 * schedulers built side by side in one JVM (tests, the simulator) never see each other's state.
 *
 * <p>Thread-safe: profiles may be built concurrently.
 */
public final class SharedGpuState {

  @GuardedBy("this")
  private final Map<FrameworkHandle, DeviceUsageIndex> indexes = new IdentityHashMap<>();

  @GuardedBy("this")
  private final Map<PrometheusRegistry, GpuMetrics> metrics = new IdentityHashMap<>();

  @GuardedBy("this")
  private final Map<KubernetesClient, HandshakeMonitor> handshakes = new IdentityHashMap<>();

  /**
   * The index of a profile, created on first use and fed by the profile's cluster events. Every
   * plugin of the profile gets the same instance; call it from a plugin factory so that the
   * initial listing is delivered.
   */
  public synchronized DeviceUsageIndex index(FrameworkHandle handle) {
    DeviceUsageIndex index = indexes.get(handle);
    if (index == null) {
      index = DeviceUsageIndex.create(handle, metrics(handle));
      indexes.put(handle, index);
    }
    return index;
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

  /** The handshake of {@code client}, started by {@code start} on first use (the profiles share it). */
  synchronized HandshakeMonitor handshake(KubernetesClient client, Supplier<HandshakeMonitor> start) {
    return handshakes.computeIfAbsent(client, c -> start.get());
  }
}
