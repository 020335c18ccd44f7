package io.hami.framework.queue;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.QueuedPod;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A pod's queue record: the latest pod object, timestamps, attempt count and the plugins that
 * rejected it last. Mutated only under the queue's lock or by the scheduling thread that popped it;
 * handed to QueueSort read-only.
 */
public final class QueuedPodInfo implements QueuedPod {
  private volatile Pod pod;
  private final String uid;
  private Instant timestamp;
  private final Instant initialTimestamp;
  private int attempts;
  long seq;
  long popEventSeq;
  long lastFailureCycle;
  private final Set<String> unschedulablePlugins = new HashSet<>();
  private final Set<String> pendingPlugins = new HashSet<>();
  private final AtomicReference<@Nullable String> lastFailureMessage = new AtomicReference<>();
  private volatile Set<String> ownAnnotations = Set.of();
  boolean backoffForError;

  QueuedPodInfo(Pod pod, Instant now) {
    this.pod = pod;
    this.uid = pod.getMetadata().getUid();
    this.timestamp = now;
    this.initialTimestamp = now;
  }

  @Override
  public Pod pod() {
    return pod;
  }

  void setPod(Pod p) {
    this.pod = p;
  }

  public String uid() {
    return uid;
  }

  @Override
  public Instant timestamp() {
    return timestamp;
  }

  void setTimestamp(Instant t) {
    this.timestamp = t;
  }

  @Override
  public Instant initialTimestamp() {
    return initialTimestamp;
  }

  @Override
  public int attempts() {
    return attempts;
  }

  void incrementAttempts() {
    attempts++;
  }

  /** The plugins whose rejection ended the last attempt; their events requeue the pod. */
  public Set<String> unschedulablePlugins() {
    return unschedulablePlugins;
  }

  /** The PreEnqueue plugins that are holding the pod back. */
  public Set<String> pendingPlugins() {
    return pendingPlugins;
  }

  /** The PodScheduled message last written for this pod, to write only changes. */
  public @Nullable String lastFailureMessage() {
    return lastFailureMessage.get();
  }

  public void setLastFailureMessage(@Nullable String message) {
    lastFailureMessage.set(message);
  }

  /**
   * Forgets {@code message} as written, unless a newer one took its place: its write was lost, so
   * the next failure with the same message writes it again. Called from the writer's thread.
   */
  public void forgetFailureMessage(String message) {
    lastFailureMessage.compareAndSet(message, null);
  }

  /**
   * The annotation keys the scheduler writes on this pod when an attempt fails; their changes are
   * not a reason to retry the pod.
   */
  public Set<String> ownAnnotations() {
    return ownAnnotations;
  }

  /**
   * Records annotation keys the scheduler is about to write on this pod. Called by the thread that
   * handles the pod's failure before it requeues the pod, so that the write's echo finds them.
   */
  public void markOwnAnnotations(Collection<String> keys) {
    if (!ownAnnotations.containsAll(keys)) {
      Set<String> all = new HashSet<>(ownAnnotations);
      all.addAll(keys);
      ownAnnotations = Set.copyOf(all);
    }
  }

  public String key() {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  @Override
  public String toString() {
    return "QueuedPodInfo{" + key() + ", attempts=" + attempts + "}";
  }
}
