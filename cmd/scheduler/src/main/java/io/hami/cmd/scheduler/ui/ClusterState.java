package io.hami.cmd.scheduler.ui;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the cluster view shows, built by {@link ClusterStateBuilder} and encoded by {@link
 * ClusterStateJson}. Holds only what the page needs: names, device figures, HAMi annotation values
 * decoded into fields; never a pod's environment, another annotation or a secret.
 *
 * @param nodes the nodes, by name
 * @param pending the pods waiting in the scheduling queue, oldest first
 * @param policies the placement policy of each profile
 */
record ClusterState(List<NodeView> nodes, List<PendingPod> pending, List<ProfilePolicy> policies) {

  ClusterState {
    nodes = List.copyOf(nodes);
    pending = List.copyOf(pending);
    policies = List.copyOf(policies);
  }

  /**
   * One node.
   *
   * @param unschedulable whether the node is cordoned
   * @param gpus its GPUs as its register annotation lists them, by index
   * @param registerProblem why the register annotation could not be read; null when it could (or is
   *     absent)
   * @param otherPods pods on the node that hold no GPU share
   * @param detail lock, handshake and registration state
   */
  record NodeView(
      String name,
      boolean unschedulable,
      List<GpuView> gpus,
      @Nullable String registerProblem,
      int otherPods,
      NodeDetail detail) {
    NodeView {
      gpus = List.copyOf(gpus);
    }
  }

  /**
   * The HAMi state of a node.
   *
   * @param lockHolder {@code namespace/name} of the pod holding the node lock, empty for a legacy
   *     time-only lock, null when the node is not locked
   * @param lockSince when the lock was taken; null when not locked or unreadable
   * @param handshake {@code Requesting}, {@code Reported}, {@code Deleted} or {@code None}
   * @param handshakeValue the handshake annotation as written (a HAMi timestamp), empty when absent
   * @param registerSeen when this scheduler first saw the current register annotation; null when
   *     the node has none
   */
  record NodeDetail(
      @Nullable String lockHolder,
      @Nullable Instant lockSince,
      String handshake,
      String handshakeValue,
      @Nullable Instant registerSeen) {}

  /**
   * One GPU.
   *
   * @param id device UUID
   * @param index driver index
   * @param type model, e.g. {@code NVIDIA A100-SXM4-80GB}
   * @param numa NUMA node
   * @param mode {@code hami-core}, {@code mig} or {@code mps}
   * @param healthy as the node agent reports it
   * @param memUsed MiB granted to pods
   * @param memTotal MiB registered
   * @param coresUsed percent granted to pods
   * @param coresTotal percent registered
   * @param slotsUsed containers sharing it
   * @param slotsTotal containers that may share it
   * @param pods the pods on it and their shares
   * @param migInstances the MIG instances assigned on it
   */
  record GpuView(
      String id,
      int index,
      String type,
      int numa,
      String mode,
      boolean healthy,
      long memUsed,
      long memTotal,
      long coresUsed,
      long coresTotal,
      int slotsUsed,
      int slotsTotal,
      List<PodShare> pods,
      List<MigInstance> migInstances) {
    GpuView {
      pods = List.copyOf(pods);
      migInstances = List.copyOf(migInstances);
    }
  }

  /**
   * A pod's share of one GPU (all its containers together).
   *
   * @param pod {@code namespace/name}
   * @param mem MiB
   * @param cores percent
   * @param containers how many of its containers use the GPU
   */
  record PodShare(String pod, long mem, long cores, int containers) {}

  /**
   * A MIG instance assigned to a pod.
   *
   * @param pod {@code namespace/name}
   * @param profile e.g. {@code 1g.10gb}
   * @param instance the MIG device UUID once the node agent created it, else empty
   */
  record MigInstance(String pod, String profile, String instance) {}

  /**
   * A pod waiting to be scheduled, with what its last attempt found.
   *
   * @param pod {@code namespace/name}
   * @param scheduler its scheduler name
   * @param created its creation time; null when unset
   * @param reason the {@code PodScheduled} condition's reason (e.g. {@code Unschedulable}), empty
   *     before a first attempt
   * @param message the condition's message
   * @param attempted when the last attempt failed (from {@code hami.io/schedule-explain}); null
   *     when not recorded
   * @param reasons the record's reasons with their node counts, {@code "3 CardInsufficientMemory"}
   * @param closest the nodes nearest to fitting and their reasons, {@code "gpu-1: X, Y"}
   */
  record PendingPod(
      String pod,
      String scheduler,
      @Nullable Instant created,
      String reason,
      String message,
      @Nullable Instant attempted,
      List<String> reasons,
      List<String> closest) {
    PendingPod {
      reasons = List.copyOf(reasons);
      closest = List.copyOf(closest);
    }
  }

  /**
   * The placement policy of one profile: the arguments of its GPU plugins.
   *
   * @param plugins plugin name to its arguments, field by field, in declaration order
   */
  record ProfilePolicy(String schedulerName, Map<String, Map<String, String>> plugins) {}
}
