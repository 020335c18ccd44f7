package io.hami.framework.api;

import org.jspecify.annotations.Nullable;

/**
 * Where a plugin's per-position summary of the snapshot stands: {@link #advance} says which
 * positions to read again since the last call, so that a summary kept across cycles (which nodes
 * hold pods with affinity, which hold an image, how much GPU each has free) costs a cycle as many
 * reads as nodes changed, not one per node of the cluster.
 *
 * <p>Not thread-safe: use it under the summary's own lock.
 */
public final class SnapshotCursor {
  private @Nullable Snapshot last;
  private long generation = -1;
  private int size = -1;

  /**
   * Moves to {@code snapshot}: returns the positions replaced since the previous call, or null when
   * every position must be compared (the first call, another snapshot, a changed node list, or one
   * that does not track changes).
   */
  // Identity on purpose: the generations of one snapshot say nothing about another.
  @SuppressWarnings("ReferenceEquality")
  public int @Nullable [] advance(Snapshot snapshot) {
    int[] replaced = null;
    if (snapshot == last && snapshot.size() == size && generation >= 0) {
      replaced = snapshot.replacedSince(generation);
    }
    last = snapshot;
    generation = snapshot.generation();
    size = snapshot.size();
    return replaced;
  }
}
