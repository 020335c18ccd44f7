package io.hami.model;

/**
 * Checked form of a {@link ProtocolError}, for callers that prefer to propagate a decode failure.
 */
public final class ProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  private final ProtocolError error;

  public ProtocolException(ProtocolError error) {
    super(error.toString());
    this.error = error;
  }

  /** The decode failure. */
  public ProtocolError error() {
    return error;
  }
}
