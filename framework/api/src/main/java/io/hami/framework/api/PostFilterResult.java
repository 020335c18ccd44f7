package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * The result of {@link PostFilterPlugin#postFilter}.
 *
 * @param status success when the plugin made room (the pod retries), a rejection otherwise
 * @param nominatedNodeName the node made available for the pod, if any
 */
public record PostFilterResult(Status status, @Nullable String nominatedNodeName) {

  public PostFilterResult {
    requireNonNull(status, "status");
  }

  public static PostFilterResult of(Status status) {
    return new PostFilterResult(status, null);
  }

  public static PostFilterResult nominated(String nodeName) {
    return new PostFilterResult(Status.success(), nodeName);
  }
}
