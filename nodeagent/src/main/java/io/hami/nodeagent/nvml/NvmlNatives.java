package io.hami.nodeagent.nvml;

import org.jspecify.annotations.Nullable;

/**
 * The natives of the NVML shim ({@code src/main/c/hami_nvml.c}), registered in its {@code
 * JNI_OnLoad}. Failures throw {@link NvmlException}. Handles are NVML device pointers.
 */
final class NvmlNatives {
  private NvmlNatives() {}

  /** Opens NVML at {@code path}; returns null, or why NVML is not available. */
  static native @Nullable String load(String path);

  static native void init() throws NvmlException;

  static native void shutdown() throws NvmlException;

  static native String driverVersion() throws NvmlException;

  static native int deviceCount() throws NvmlException;

  static native long handle(int index) throws NvmlException;

  static native String uuid(long handle) throws NvmlException;

  static native String name(long handle) throws NvmlException;

  /** Total bytes, or -1 when not supported. */
  static native long memoryTotal(long handle) throws NvmlException;

  static native String pciBusId(long handle) throws NvmlException;

  static native int migEnabled(long handle) throws NvmlException;

  static native int commonAncestor(long a, long b) throws NvmlException;

  static native int nvLinksTo(long from, String remoteBusId) throws NvmlException;

  static native long eventSetCreate() throws NvmlException;

  static native boolean registerXid(long set, long handle) throws NvmlException;

  /** {device index, event type, XID}, or null on timeout. */
  static native long @Nullable [] eventWait(long set, int timeoutMs) throws NvmlException;

  static native void eventSetFree(long set) throws NvmlException;

  /**
   * GPU instance profile {@code profileIndex} (an {@code NVML_GPU_INSTANCE_PROFILE_*} constant):
   * {id, slice count, instance count, memory MiB}, or null when the GPU does not offer it.
   */
  static native long @Nullable [] migProfile(long handle, int profileIndex) throws NvmlException;

  /** The possible placements of a profile id, flattened as {start, size, start, size, ...}. */
  static native int[] migPlacements(long handle, int profileId) throws NvmlException;

  /**
   * Creates a GPU instance at a placement and a compute instance spanning it: {GI id, CI id}. The
   * GPU instance is destroyed again when the compute instance cannot be created.
   */
  static native int[] migCreate(long handle, int profileId, int start, int size)
      throws NvmlException;

  /**
   * The GPU instances, flattened as {GI id, profile id, start, size, CI id} per instance; CI id is
   * -1 when the GPU instance has no compute instance.
   */
  static native int[] migInstances(long handle) throws NvmlException;

  /** The UUID of the MIG device of a GPU instance and compute instance, or null when none. */
  static native @Nullable String migUuid(long handle, int gpuInstanceId, int computeInstanceId)
      throws NvmlException;

  /** Destroys a compute instance (unless -1), then its GPU instance. */
  static native void migDestroy(long handle, int gpuInstanceId, int computeInstanceId)
      throws NvmlException;

  /**
   * {@code nvmlDeviceGetProcessUtilization} since {@code sinceMicros}, flattened as {pid,
   * timestamp, SM %, memory %} per sample; empty when there is no sample.
   */
  static native long[] processUtilization(long handle, long sinceMicros) throws NvmlException;
}
