package io.hami.cmd.explain;

import io.hami.model.explain.ScheduleRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The answer for one pod, ready to print. Immutable.
 *
 * @param state where the pod stands
 * @param summary one line saying where it went or why it waits
 * @param condition the PodScheduled condition, if any
 * @param placement the scheduler's record of the placement, if present and readable
 * @param failure the scheduler's record of the last failed attempt, if present and readable
 * @param attemptIsStale the record is older than the pod's binding (a failure recorded before it
 *     was bound, or a placement on another node)
 * @param binding the bind annotations
 * @param devices the devices granted, per container
 * @param locks the node locks that concern the pod
 * @param events the pod's Events, oldest first
 * @param problems annotations that could not be read
 */
record Explanation(
    String namespace,
    String name,
    String phase,
    String schedulerName,
    @Nullable String nodeName,
    State state,
    String summary,
    @Nullable Condition condition,
    ScheduleRecord.@Nullable Scheduled placement,
    ScheduleRecord.@Nullable Failed failure,
    boolean attemptIsStale,
    Binding binding,
    List<ContainerDevices> devices,
    List<Lock> locks,
    List<EventLine> events,
    List<Problem> problems) {

  Explanation {
    devices = List.copyOf(devices);
    locks = List.copyOf(locks);
    events = List.copyOf(events);
    problems = List.copyOf(problems);
  }

  /** Where the pod stands. */
  enum State {
    /** Bound to a node. */
    SCHEDULED,
    /** Not bound yet. */
    PENDING,
    /** Being deleted or finished. */
    GONE
  }

  record Condition(
      String status, String reason, String message, @Nullable String lastTransitionTime) {}

  /**
   * The bind annotations.
   *
   * @param phase {@code hami.io/bind-phase} as written, or null
   * @param bindTime {@code hami.io/bind-time}, or null when absent or unreadable
   * @param vgpuNode {@code hami.io/vgpu-node}, or null
   * @param vgpuTime {@code hami.io/vgpu-time}, or null when absent or unreadable
   */
  record Binding(
      @Nullable String phase,
      @Nullable Instant bindTime,
      @Nullable String vgpuNode,
      @Nullable Instant vgpuTime) {}

  /** Devices of one container from one vendor's allocation annotation. */
  record ContainerDevices(String container, String annotation, List<Device> devices) {
    ContainerDevices {
      devices = List.copyOf(devices);
    }
  }

  /**
   * One granted device.
   *
   * @param pending still listed in the to-allocate annotation: the node agent has not served it
   */
  record Device(String uuid, String type, int memMiB, int cores, boolean pending) {}

  /**
   * A node's lock as it concerns the pod.
   *
   * @param node the node
   * @param why why this node was looked at
   * @param value the {@code hami.io/mutex.lock} value, or null when the node is unlocked or absent
   * @param nodeExists whether the node was found
   * @param holder who holds the lock, if the value names a pod
   * @param heldBySelf the pod itself holds it
   * @param age how long it has been held
   * @param expired older than the default lock timeout, so the next bind replaces it
   */
  record Lock(
      String node,
      String why,
      @Nullable String value,
      boolean nodeExists,
      @Nullable Holder holder,
      boolean heldBySelf,
      @Nullable Duration age,
      boolean expired) {}

  /**
   * The pod a lock names.
   *
   * @param exists whether it still exists (a deleted holder leaves a stale lock)
   */
  record Holder(
      String namespace,
      String name,
      boolean exists,
      @Nullable String phase,
      @Nullable String nodeName,
      @Nullable String bindPhase,
      boolean deleting) {}

  record EventLine(
      String type, String reason, String message, int count, String from, @Nullable Instant last) {}

  /** An annotation that could not be read: where, the value, and why. */
  record Problem(String where, String value, String error) {}
}
