package io.hami.nodeagent.nvml;

/** An NVML call failed. {@link #code()} is the {@code nvmlReturn_t}, or a negative shim code. */
public final class NvmlException extends Exception {
  /** NVML could not be loaded at all (no driver on this host). */
  public static final int NOT_LOADED = -1;

  private final int code;

  public NvmlException(int code, String message) {
    super(message);
    this.code = code;
  }

  public int code() {
    return code;
  }
}
