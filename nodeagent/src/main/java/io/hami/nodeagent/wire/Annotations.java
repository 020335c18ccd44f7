package io.hami.nodeagent.wire;

/** Annotation keys the node agent reads and writes (spec §2). */
public final class Annotations {
  private Annotations() {}

  public static final String NODE_REGISTER = "hami.io/node-nvidia-register";
  public static final String NODE_SCORE = "hami.io/node-nvidia-score";
  public static final String NODE_HANDSHAKE = "hami.io/node-handshake";
  public static final String NODE_LOCK = "hami.io/mutex.lock";
  public static final String VGPU_NODE = "hami.io/vgpu-node";
  public static final String TO_ALLOCATE = "hami.io/vgpu-devices-to-allocate";
  public static final String ALLOCATED = "hami.io/vgpu-devices-allocated";
  public static final String BIND_PHASE = "hami.io/bind-phase";
  public static final String BIND_TIME = "hami.io/bind-time";

  public static final String PHASE_ALLOCATING = "allocating";
  public static final String PHASE_SUCCESS = "success";
  public static final String PHASE_FAILED = "failed";

  /** The vendor keyword NVIDIA devices carry in pod device records. */
  public static final String NVIDIA = "NVIDIA";
}
