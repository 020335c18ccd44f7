package io.hami.model;

/**
 * The vendor-independent annotation and label keys of the protocol. Per-vendor keys (register,
 * handshake, allocation) live in {@link io.hami.model.vendor.VendorKeys}.
 */
public final class Annotations {

  private Annotations() {}

  /** Prefix of every key since hami-2.3. */
  public static final String PREFIX = "hami.io/";

  /** Prefix of the v2.0 keys; only recognised, never written. */
  public static final String LEGACY_PREFIX = "4pd.io/";

  // Node annotations

  /** NVIDIA node register (JSON since v2.8, colon form before). */
  public static final String NODE_NVIDIA_REGISTER = "hami.io/node-nvidia-register";

  /** NVIDIA GPU pair scores (written when topology scoring is enabled). */
  public static final String NODE_NVIDIA_SCORE = "hami.io/node-nvidia-score";

  /** NVIDIA handshake. */
  public static final String NODE_HANDSHAKE = "hami.io/node-handshake";

  /** Node lock shared by every vendor: {@code <RFC3339>,<ns>,<pod>}. */
  public static final String MUTEX_LOCK = "hami.io/mutex.lock";

  /**
   * Written {@code "true"} by this project's node agent: it finds the pod to serve in Allocate
   * without the node lock, so a scheduler in lock mode {@code scheduler} need not write one here.
   * Not part of HAMi's protocol; HAMi ignores it.
   */
  public static final String NODE_LOCK_FREE = "hami.io/node-lock-free";

  /** Cambricon's extra node lock: RFC3339 time only, expires after two minutes. */
  public static final String DSMLU_LOCK = "cambricon.com/dsmlu.lock";

  /** Comma list of device UUIDs excluded from new allocations (v2.10). */
  public static final String DEVICE_CORDON = "hami.io/device-cordon";

  // Pod annotations written by the system

  /** Node chosen in Filter; also set as a pod label. */
  public static final String VGPU_NODE = "hami.io/vgpu-node";

  /** Unix seconds of the Filter decision. */
  public static final String VGPU_TIME = "hami.io/vgpu-time";

  /** NVIDIA devices the node agent still has to hand out; emptied entry by entry. */
  public static final String VGPU_DEVICES_TO_ALLOCATE = "hami.io/vgpu-devices-to-allocate";

  /** NVIDIA devices granted; never erased, used for accounting. */
  public static final String VGPU_DEVICES_ALLOCATED = "hami.io/vgpu-devices-allocated";

  /** {@code allocating}, {@code success} or {@code failed}; see {@link BindPhase}. */
  public static final String BIND_PHASE = "hami.io/bind-phase";

  /** Unix seconds of Bind. */
  public static final String BIND_TIME = "hami.io/bind-time";

  /** Dynamic MIG allocations JSON (v2.10). */
  public static final String VGPU_MIG_ALLOCATIONS = "hami.io/vgpu-mig-allocations";

  /**
   * This scheduler's record of the pod's last attempt, for {@code hami explain} (not part of HAMi's
   * protocol); see {@link io.hami.model.explain.ScheduleRecordCodec}.
   */
  public static final String SCHEDULE_EXPLAIN = "hami.io/schedule-explain";

  // Pod annotations set by users

  /** Comma list: the device type must contain one item (case-insensitive). */
  public static final String NVIDIA_USE_GPUTYPE = "nvidia.com/use-gputype";

  /** Comma list: a device whose type contains any item is excluded. */
  public static final String NVIDIA_NOUSE_GPUTYPE = "nvidia.com/nouse-gputype";

  /** Comma list of the only UUIDs allowed. */
  public static final String NVIDIA_USE_GPUUUID = "nvidia.com/use-gpuuuid";

  /** Comma list of UUIDs to exclude. */
  public static final String NVIDIA_NOUSE_GPUUUID = "nvidia.com/nouse-gpuuuid";

  /** Bool: all GPUs of one container on one NUMA node. */
  public static final String NVIDIA_NUMA_BIND = "nvidia.com/numa-bind";

  /** The device mode must be a substring of this value. */
  public static final String NVIDIA_VGPU_MODE = "nvidia.com/vgpu-mode";

  /** {@code binpack} or {@code spread}. */
  public static final String NODE_SCHEDULER_POLICY = "hami.io/node-scheduler-policy";

  /**
   * {@code binpack}, {@code spread}, {@code topology-aware}, {@code mutex}, {@code numa} or a comma
   * chain.
   */
  public static final String GPU_SCHEDULER_POLICY = "hami.io/gpu-scheduler-policy";

  /** {@code slot=<n>,core=<n>,memory=<n>} (v2.10); see {@link io.hami.model.pod.ScoringWeights}. */
  public static final String DEVICE_SCORING_WEIGHTS = "hami.io/device-scoring-weights";

  /** {@code hami-core} selects the Ascend soft split. */
  public static final String ASCEND_VNPU_MODE = "huawei.com/vnpu-mode";

  // Labels

  /** {@code ignore} on a namespace or pod excludes it from the webhook. */
  public static final String WEBHOOK_LABEL = "hami.io/webhook";

  /** Value of {@link #WEBHOOK_LABEL} that opts out. */
  public static final String WEBHOOK_IGNORE = "ignore";

  /** Marks gang members (node lock retry). */
  public static final String POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group";

  /** Set by the leader election on scheduler pods: {@code leader} / {@code follower}. */
  public static final String SCHEDULER_ROLE_LABEL = "hami.io/scheduler-role";

  /** Whether {@code key} uses the v2.0 prefix. */
  public static boolean isLegacy(String key) {
    return key.startsWith(LEGACY_PREFIX);
  }
}
