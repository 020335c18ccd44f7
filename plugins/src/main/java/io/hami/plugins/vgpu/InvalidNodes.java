package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.hami.plugins.vgpu.DeviceUsageIndex.InvalidNodeListener;
import io.hami.plugins.vgpu.DeviceUsageIndex.Registered;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/** Accounting of nodes whose device annotations turned unreadable: the listener and the counts. */
final class InvalidNodes {

  private final InvalidNodeListener listener;
  private final AtomicLong events = new AtomicLong();

  InvalidNodes(InvalidNodeListener listener) {
    this.listener = requireNonNull(listener, "invalid");
  }

  /** Whether going from {@code before} to {@code after} is a new reason to be unreadable. */
  static boolean turnsInvalid(Registered before, Registered after) {
    return after.invalid() != null && !Objects.equals(after.invalid(), before.invalid());
  }

  /** Counts the event and tells the listener (outside the index's lock). */
  void turnedInvalid(Node node, Registered registered) {
    events.incrementAndGet();
    listener.invalid(node, registered);
  }

  /** How many times a node's annotations turned unreadable. */
  long events() {
    return events.get();
  }
}
