package io.hami.nodeagent.deviceplugin;

/** An Allocate that cannot be served; the message is meant for kubelet's event and the log. */
public final class AllocationException extends Exception {
  public AllocationException(String message) {
    super(message);
  }

  public AllocationException(String message, Throwable cause) {
    super(message, cause);
  }
}
