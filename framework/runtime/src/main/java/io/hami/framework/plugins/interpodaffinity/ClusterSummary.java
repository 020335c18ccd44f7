package io.hami.framework.plugins.interpodaffinity;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.SnapshotCursor;
import io.hami.framework.plugins.interpodaffinity.InterPodAffinityPlugin.NodePods;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Whether any node of the snapshot holds pods with pod (anti-)affinity, so that PreFilter and
 * PreScore can skip in the common case without reading every node. Kept by snapshot position with
 * the {@link NodeInfo} instance it was read from: a refresh reads only the positions the snapshot
 * replaced since the last one ({@link SnapshotCursor}), or, when those are not known, compares
 * references (a sequential pass over two arrays) and reads the nodes whose instance changed.
 *
 * <p>Used on the scheduling thread; synchronized so that other callers (tests, tools) stay safe.
 */
final class ClusterSummary {
  @GuardedBy("this")
  private final SnapshotCursor cursor = new SnapshotCursor();

  @GuardedBy("this")
  private @Nullable NodeInfo[] nodes = new NodeInfo[0];

  @GuardedBy("this")
  private boolean[] antiAffinity = new boolean[0];

  @GuardedBy("this")
  private boolean[] affinity = new boolean[0];

  @GuardedBy("this")
  private int antiAffinityNodes;

  @GuardedBy("this")
  private int affinityNodes;

  /**
   * Brings the summary up to the snapshot, reading only the positions it replaced since the last
   * refresh when it tracks them.
   */
  synchronized void refresh(Snapshot snapshot) {
    int[] replaced = cursor.advance(snapshot);
    List<NodeInfo> current = snapshot.nodes();
    if (replaced == null || current.size() != nodes.length) {
      refresh(current);
      return;
    }
    for (int i : replaced) {
      update(i, current.get(i));
    }
  }

  /** Brings the summary up to the snapshot's {@code current} nodes, comparing every position. */
  synchronized void refresh(List<NodeInfo> current) {
    int n = current.size();
    if (n != nodes.length) {
      nodes = new NodeInfo[n];
      antiAffinity = new boolean[n];
      affinity = new boolean[n];
      antiAffinityNodes = 0;
      affinityNodes = 0;
    }
    for (int i = 0; i < n; i++) {
      update(i, current.get(i));
    }
  }

  @GuardedBy("this")
  private void update(int i, NodeInfo node) {
    if (node == nodes[i]) {
      return;
    }
    NodePods pods = InterPodAffinityPlugin.podsOf(node);
    boolean anti = !pods.withRequiredAntiAffinity().isEmpty();
    boolean any = !pods.withAffinity().isEmpty();
    if (anti != antiAffinity[i]) {
      antiAffinityNodes += anti ? 1 : -1;
      antiAffinity[i] = anti;
    }
    if (any != affinity[i]) {
      affinityNodes += any ? 1 : -1;
      affinity[i] = any;
    }
    nodes[i] = node;
  }

  /** Whether a node holds a pod with required anti-affinity, as of the last refresh. */
  synchronized boolean anyRequiredAntiAffinity() {
    return antiAffinityNodes > 0;
  }

  /** Whether a node holds a pod with any pod (anti-)affinity, as of the last refresh. */
  synchronized boolean anyAffinity() {
    return affinityNodes > 0;
  }
}
