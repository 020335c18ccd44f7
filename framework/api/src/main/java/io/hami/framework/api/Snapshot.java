package io.hami.framework.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The nodes of the cluster as of the start of a scheduling cycle. It does not change during the
 * cycle: the runtime refreshes it between cycles, on the scheduling thread, and only the nodes
 * whose generation moved are replaced. Hold on to {@link NodeInfo} values, not to the snapshot,
 * beyond a cycle.
 */
public interface Snapshot {

  /** Returns every node, in a stable order (the order nodes were added to the cluster). */
  List<NodeInfo> nodes();

  /** Returns the node called {@code nodeName}, or null if the cluster has none. */
  @Nullable NodeInfo get(String nodeName);

  /** Returns the number of nodes. */
  default int size() {
    return nodes().size();
  }

  /**
   * A number that grows each time the snapshot is brought up to date with changes; -1 for a
   * snapshot that never changes or does not track them.
   */
  default long generation() {
    return -1;
  }

  /**
   * The positions of {@link #nodes()} whose NodeInfo was replaced since this snapshot had {@code
   * generation} (in no particular order, possibly repeated), or null when they are not known: the
   * node list itself changed since, or that generation is too old, or the snapshot does not track
   * changes. A caller keeping state by position then compares every position. See {@link
   * SnapshotCursor}.
   */
  default int @Nullable [] replacedSince(long generation) {
    return null;
  }

  /** Returns an immutable snapshot of the given nodes, in iteration order. */
  static Snapshot of(Collection<NodeInfo> nodes) {
    ImmutableList<NodeInfo> list = ImmutableList.copyOf(nodes);
    ImmutableMap.Builder<String, NodeInfo> byName = ImmutableMap.builder();
    for (NodeInfo n : list) {
      byName.put(n.name(), n);
    }
    ImmutableMap<String, NodeInfo> map = byName.buildOrThrow();
    return new Snapshot() {
      @Override
      public List<NodeInfo> nodes() {
        return list;
      }

      @Override
      public @Nullable NodeInfo get(String nodeName) {
        return map.get(nodeName);
      }
    };
  }
}
