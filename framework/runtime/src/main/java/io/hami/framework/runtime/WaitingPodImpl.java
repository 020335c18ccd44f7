package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** A pod held at Permit; completes when every waiting plugin allowed it, or on reject/timeout. */
final class WaitingPodImpl implements WaitingPod {
  private final Pod pod;
  private final String nodeName;
  private final Instant deadline;
  // @GuardedBy("this")
  private final Set<String> pending;
  private final CompletableFuture<Status> result = new CompletableFuture<>();

  WaitingPodImpl(Pod pod, String nodeName, Set<String> plugins, Instant deadline) {
    this.pod = pod;
    this.nodeName = nodeName;
    this.pending = new HashSet<>(plugins);
    this.deadline = deadline;
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
    return Set.copyOf(pending);
  }

  @Override
  public void allow(String pluginName) {
    boolean done;
    synchronized (this) {
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
