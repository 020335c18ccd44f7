package io.hami.sim;

/**
 * A trace file that cannot be read; the message names the file, the line or object and the field.
 */
public final class TraceFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  public TraceFormatException(String message) {
    super(message);
  }

  public TraceFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
