package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hami.plugins.vgpu.DeviceUsageIndex.Registered;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One node's state in a {@link DeviceUsageIndex}: its registration, the usage counted per device,
 * MIG holdings and health marks, and the view last published from them.
 *
 * <p>Concurrency: every field but {@link #view} is guarded by the index's lock; the view is
 * published through a volatile field and never changes once published.
 */
final class NodeDeviceState {
  final String name;

  /** The index's lock. */
  private final Object lock;

  @GuardedBy("lock")
  Registered registered = Registered.NONE;

  @GuardedBy("lock")
  @Nullable Object registeredFrom;

  @GuardedBy("lock")
  final Map<String, int[]> used = new HashMap<>();

  @GuardedBy("lock")
  final MigHoldings mig = new MigHoldings();

  /** Vendors the handshake found unhealthy: their devices are offered as unhealthy. */
  @GuardedBy("lock")
  final VendorHealthMarks health = new VendorHealthMarks();

  volatile NodeDevices view;

  NodeDeviceState(String name, Object lock) {
    this.name = name;
    this.lock = lock;
    this.view = empty(name);
  }

  /** The view of a node without devices. */
  static NodeDevices empty(String name) {
    return new NodeDevices(name, ImmutableList.of(), PairScores.NONE, null, 0);
  }

  /** Publishes a new view, then tells {@code changed} of the node. */
  @GuardedBy("lock")
  void publish(Consumer<String> changed) {
    view = render(null, view.version() + 1);
    // After the view is visible: a NodeInfo made from now on sees it.
    changed.accept(name);
  }

  /** Counts ({@code sign} +1) or uncounts (-1) what a pod holds on this node's devices. */
  // The forEach runs on this thread, under the lock.
  @SuppressWarnings("GuardedBy")
  @GuardedBy("lock")
  void apply(PodUsage usage, int sign) {
    usage
        .byDevice()
        .forEach(
            (id, u) -> {
              int[] acc = used.computeIfAbsent(id, k -> new int[3]);
              acc[0] += sign * u.slots();
              acc[1] += sign * u.memMiB();
              acc[2] += sign * u.cores();
              if (acc[0] == 0 && acc[1] == 0 && acc[2] == 0) {
                used.remove(id);
              }
              mig.apply(id, u.mig(), sign);
            });
  }

  /** The node's devices as they are, or as they would be without {@code except}'s usage. */
  @GuardedBy("lock")
  NodeDevices render(@Nullable PodUsage except, long version) {
    List<DeviceUsage> reg = registered.devices();
    ImmutableList.Builder<DeviceUsage> b = ImmutableList.builderWithExpectedSize(reg.size());
    for (DeviceUsage d : reg) {
      int[] u = used.get(d.id());
      PodUsage.Usage mine = except == null ? null : except.byDevice().get(d.id());
      if (mine == null) {
        DeviceUsage v = u == null ? d : d.withUsage(u[0], u[1], u[2]);
        b.add(health.apply(mig.overlay(v)));
        continue;
      }
      int[] all = u == null ? new int[3] : u;
      DeviceUsage v =
          d.withUsage(
              Math.max(0, all[0] - mine.slots()),
              Math.max(0, all[1] - mine.memMiB()),
              Math.max(0, all[2] - mine.cores()));
      b.add(health.apply(mig.overlay(v, mine.mig())));
    }
    return new NodeDevices(name, b.build(), registered.pairs(), registered.invalid(), version);
  }
}
