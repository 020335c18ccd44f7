package io.hami.framework.runtime;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A pod held at Permit; completes when every waiting plugin allowed it, or on reject/timeout.
 *
 * <p>It is registered before the Permit plugins run, so that a plugin's other thread can allow the
 * pod between a plugin's WAIT and the end of Permit (the node lock hands the node on from the
 * informer thread): such an allow is kept and counted once {@link #settle} names the waiting
 * plugins. Before that, the pod has no deadline.
 */
final class WaitingPodImpl implements WaitingPod {
  private final Pod pod;
  private final String nodeName;

  @GuardedBy("this")
  private @Nullable Set<String> pending;

  @GuardedBy("this")
  private final Set<String> allowedEarly = new HashSet<>();

  private volatile Instant deadline = Instant.MAX;
  private final CompletableFuture<Status> result = new CompletableFuture<>();

  WaitingPodImpl(Pod pod, String nodeName) {
    this.pod = pod;
    this.nodeName = nodeName;
  }

  /** Permit ended with {@code plugins} waiting: allows already given count, the deadline starts. */
  void settle(Set<String> plugins, Instant deadline) {
    boolean done;
    synchronized (this) {
      Set<String> p = new HashSet<>(plugins);
      p.removeAll(allowedEarly);
      pending = p;
      done = p.isEmpty();
    }
    this.deadline = deadline;
    if (done) {
      result.complete(Status.success());
    }
  }

  @Override
  public Pod pod() {
    return pod;
  }

  @Override
  public String nodeName() {
    return nodeName;
  }

  @Override
  public synchronized Set<String> pendingPlugins() {
    return pending == null ? Set.of() : Set.copyOf(pending);
  }

  @Override
  public void allow(String pluginName) {
    boolean done;
    synchronized (this) {
      if (pending == null) {
        allowedEarly.add(pluginName);
        return;
      }
      pending.remove(pluginName);
      done = pending.isEmpty();
    }
    if (done) {
      result.complete(Status.success());
    }
  }

  @Override
  public void reject(String pluginName, String reason) {
    result.complete(Status.unschedulable(reason).withPlugin(pluginName));
  }

  /** Rejects the pod on the scheduler's own account (no plugin), as on its deletion. */
  void reject(String reason) {
    result.complete(Status.unschedulable(reason));
  }

  Instant deadline() {
    return deadline;
  }

  void expire() {
    result.complete(
        Status.unschedulable("rejected due to timeout after waiting at Permit")
            .withPlugin(String.join(",", pendingPlugins())));
  }

  CompletableFuture<Status> result() {
    return result;
  }
}
