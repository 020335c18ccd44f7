package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The result of a plugin call: a code, short human-readable reasons, an optional cause and the name
 * of the plugin that produced it (filled in by the runtime).
 *
 * <p>Reasons of rejections are counted across nodes to build the pod's {@code PodScheduled} message
 * ({@code 0/5000 nodes are available: 4000 CardInsufficientMemory, ...}), so use short, stable
 * phrases without node-specific numbers in them.
 *
 * @param code the outcome class
 * @param reasons the reasons, possibly empty
 * @param cause the exception behind an {@link Code#ERROR}, if any
 * @param plugin the plugin that produced the status, or null before the runtime sets it
 */
public record Status(
    Code code, List<String> reasons, @Nullable Throwable cause, @Nullable String plugin) {

  private static final Status SUCCESS = new Status(Code.SUCCESS, List.of(), null, null);
  private static final Status SKIP = new Status(Code.SKIP, List.of(), null, null);
  private static final Status WAIT = new Status(Code.WAIT, List.of(), null, null);

  public Status {
    requireNonNull(code, "code");
    reasons = ImmutableList.copyOf(reasons);
  }

  /** Returns the shared success status. */
  public static Status success() {
    return SUCCESS;
  }

  /** Returns the shared skip status. */
  public static Status skip() {
    return SKIP;
  }

  /** Returns the shared wait status (Permit only). */
  public static Status waiting() {
    return WAIT;
  }

  /** A rejection that a cluster event or preemption may resolve. */
  public static Status unschedulable(String... reasons) {
    return new Status(Code.UNSCHEDULABLE, List.of(reasons), null, null);
  }

  /** A rejection that preemption on the node cannot resolve. */
  public static Status unresolvable(String... reasons) {
    return new Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, List.of(reasons), null, null);
  }

  /** An unexpected failure caused by {@code cause}. */
  public static Status error(Throwable cause) {
    String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
    return new Status(Code.ERROR, List.of(message), cause, null);
  }

  /** An unexpected failure described by {@code message}. */
  public static Status error(String message) {
    return new Status(Code.ERROR, List.of(message), null, null);
  }

  /**
   * Returns a copy naming {@code pluginName} as the producer; success, and a status that already
   * names it (plugins may keep such rejections to reuse across nodes), stay shared.
   */
  public Status withPlugin(String pluginName) {
    if ((code == Code.SUCCESS && reasons.isEmpty()) || pluginName.equals(plugin)) {
      return this;
    }
    return new Status(code, reasons, cause, pluginName);
  }

  public boolean isSuccess() {
    return code == Code.SUCCESS;
  }

  public boolean isRejected() {
    return code.isRejected();
  }

  public boolean isSkip() {
    return code == Code.SKIP;
  }

  /** Returns the reasons joined with {@code ", "}. */
  public String message() {
    return String.join(", ", reasons);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(code.name());
    if (plugin != null) {
      sb.append('[').append(plugin).append(']');
    }
    if (!reasons.isEmpty()) {
      sb.append(": ").append(message());
    }
    return sb.toString();
  }
}
