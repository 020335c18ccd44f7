package io.hami.framework.plugins.imagelocality;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.SnapshotCursor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How many nodes of the snapshot hold each image, kept across cycles as kube-scheduler's cache
 * keeps its image states: a refresh re-counts only the positions the snapshot replaced since the
 * last one ({@link SnapshotCursor}), or, when those are not known, compares each position's {@link
 * NodeInfo} instance with the one last read there; a pod's PreScore no longer reads every node.
 *
 * <p>Used on the scheduling thread; synchronized so that other callers (Score without PreScore,
 * tests) stay safe.
 */
final class ImageSummary {
  @GuardedBy("this")
  private final SnapshotCursor cursor = new SnapshotCursor();

  @GuardedBy("this")
  private @Nullable NodeInfo[] nodes = new NodeInfo[0];

  @GuardedBy("this")
  private final Map<String, Integer> holders = new HashMap<>();

  /**
   * Brings the counts up to the snapshot, reading only the positions it replaced since the last
   * refresh when it tracks them, else comparing every position.
   */
  synchronized void refresh(Snapshot snapshot) {
    int[] replaced = cursor.advance(snapshot);
    List<NodeInfo> current = snapshot.nodes();
    int n = current.size();
    if (n != nodes.length) {
      nodes = new NodeInfo[n];
      holders.clear();
      replaced = null;
    }
    if (replaced != null) {
      for (int i : replaced) {
        update(i, current.get(i));
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      update(i, current.get(i));
    }
  }

  @GuardedBy("this")
  private void update(int i, NodeInfo node) {
    NodeInfo old = nodes[i];
    if (node == old) {
      return;
    }
    if (old != null) {
      count(ImageLocalityPlugin.images(old), -1);
    }
    count(ImageLocalityPlugin.images(node), +1);
    nodes[i] = node;
  }

  /** The number of nodes holding each of {@code images} (absent when none), as of the refresh. */
  synchronized Map<String, Integer> holders(Iterable<String> images) {
    Map<String, Integer> out = new HashMap<>();
    for (String image : images) {
      Integer k = holders.get(image);
      if (k != null) {
        out.put(image, k);
      }
    }
    return out;
  }

  @GuardedBy("this")
  private void count(Map<String, Long> images, int sign) {
    for (String image : images.keySet()) {
      holders.merge(image, sign, (a, b) -> a + b == 0 ? null : a + b);
    }
  }
}
