package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The result of {@link PreFilterPlugin#preFilter}: a status and, optionally, the only nodes the pod
 * can go to. The runtime intersects the node sets of all PreFilter plugins.
 *
 * @param status success, skip, a rejection of the pod on every node, or an error
 * @param nodeNames the candidate nodes, or null for all nodes
 * @param excluded the nodes of the snapshot this plugin's Filter certainly rejects, or null (see
 *     {@link ExcludedNodes}); only with success
 */
public record PreFilterResult(
    Status status, @Nullable Set<String> nodeNames, @Nullable ExcludedNodes excluded) {
  private static final PreFilterResult ALL = new PreFilterResult(Status.success(), null);
  private static final PreFilterResult SKIP = new PreFilterResult(Status.skip(), null);

  public PreFilterResult {
    requireNonNull(status, "status");
    nodeNames = nodeNames == null ? null : Set.copyOf(nodeNames);
    if (excluded != null && !status.isSuccess()) {
      throw new IllegalArgumentException("excluded nodes need a success status, was " + status);
    }
  }

  public PreFilterResult(Status status, @Nullable Set<String> nodeNames) {
    this(status, nodeNames, null);
  }

  /** Success, all nodes remain candidates. */
  public static PreFilterResult allNodes() {
    return ALL;
  }

  /** Success, only {@code names} remain candidates. */
  public static PreFilterResult onlyNodes(Set<String> names) {
    return new PreFilterResult(Status.success(), names);
  }

  /**
   * Success, all nodes remain candidates, and the runtime need not run Filter on the nodes {@code
   * excluded} reports: this plugin's Filter certainly rejects them.
   */
  public static PreFilterResult excluding(ExcludedNodes excluded) {
    return new PreFilterResult(Status.success(), null, requireNonNull(excluded, "excluded"));
  }

  /** Skip this plugin's Filter for the pod (it has nothing to check). */
  public static PreFilterResult skip() {
    return SKIP;
  }

  /** Reject the pod (on all nodes) or report an error. */
  public static PreFilterResult of(Status status) {
    return status.isSuccess() ? ALL : new PreFilterResult(status, null);
  }
}
