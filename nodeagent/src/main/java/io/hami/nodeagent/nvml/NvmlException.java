package io.hami.nodeagent.nvml;

/** An NVML call failed. {@link #code()} is the {@code nvmlReturn_t}, or a negative shim code. */
public final class NvmlException extends Exception {
  /** NVML could not be loaded at all (no driver on this host). */
  public static final int NOT_LOADED = -1;

  /** {@code NVML_ERROR_INVALID_ARGUMENT}. */
  public static final int INVALID_ARGUMENT = 2;

  /** {@code NVML_ERROR_NOT_SUPPORTED}. */
  public static final int NOT_SUPPORTED = 3;

  /** {@code NVML_ERROR_NOT_FOUND}. */
  public static final int NOT_FOUND = 6;

  /** {@code NVML_ERROR_FUNCTION_NOT_FOUND}: the driver lacks the function. */
  public static final int FUNCTION_NOT_FOUND = 13;

  /** {@code NVML_ERROR_INSUFFICIENT_RESOURCES}: e.g. a MIG placement already taken. */
  public static final int INSUFFICIENT_RESOURCES = 23;

  /** {@code NVML_ERROR_IN_USE}: e.g. a MIG instance still has processes. */
  public static final int IN_USE = 19;

  private final int code;

  public NvmlException(int code, String message) {
    super(message);
    this.code = code;
  }

  public int code() {
    return code;
  }
}
