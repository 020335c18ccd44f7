package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The result of {@link PostFilterPlugin#postFilter}, with what it means for the pod's nominated
 * node (kube-scheduler's NominatingInfo): a null {@code nominatedNodeName} leaves the nomination as
 * it is (kube's ModeNoop), an empty one clears it, any other value nominates that node
 * (ModeOverride).
 *
 * @param status success when the plugin made room (the pod retries), a rejection otherwise
 * @param nominatedNodeName the node made available for the pod; empty to clear the pod's
 *     nomination; null to leave it
 * @param victims the pods evicted to make room, for the attempt's record; empty when none
 */
public record PostFilterResult(
    Status status, @Nullable String nominatedNodeName, List<Pod> victims) {

  public PostFilterResult {
    requireNonNull(status, "status");
    victims = List.copyOf(victims);
  }

  public PostFilterResult(Status status, @Nullable String nominatedNodeName) {
    this(status, nominatedNodeName, List.of());
  }

  /** A result that leaves the pod's nomination as it is. */
  public static PostFilterResult of(Status status) {
    return new PostFilterResult(status, null);
  }

  /** A result that clears the pod's nomination. */
  public static PostFilterResult clearNomination(Status status) {
    return new PostFilterResult(status, "");
  }

  public static PostFilterResult nominated(String nodeName) {
    return new PostFilterResult(Status.success(), nodeName);
  }

  /** A success that nominates {@code nodeName} after evicting {@code victims}. */
  public static PostFilterResult nominated(String nodeName, List<Pod> victims) {
    return new PostFilterResult(Status.success(), nodeName, victims);
  }
}
