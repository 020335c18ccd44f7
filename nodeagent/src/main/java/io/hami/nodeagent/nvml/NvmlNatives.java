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
}
