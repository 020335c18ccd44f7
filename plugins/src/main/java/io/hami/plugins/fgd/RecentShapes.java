package io.hami.plugins.fgd;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shapes of the pods seen most recently, as a target workload that follows the cluster's actual
 * demand. Holds the last {@code window} shapes and derives the workload again after every {@code
 * refreshEvery} new ones, so that scoring reads a stable value between refreshes.
 *
 * <p>Thread-safe: {@link #add} and {@link #current} synchronise on this object; the workload
 * returned is immutable.
 */
public final class RecentShapes {

  @GuardedBy("this")
  private final HamiShape[] ring;

  private final int refreshEvery;
  private final double coverage;

  @GuardedBy("this")
  private int next;

  @GuardedBy("this")
  private int size;

  @GuardedBy("this")
  private int sinceRefresh;

  @GuardedBy("this")
  private @Nullable HamiWorkload current;

  /**
   * @param window how many recent pods make up the workload
   * @param refreshEvery how many new pods between recomputations
   * @param coverage share of the window the kept shapes must cover
   */
  public RecentShapes(int window, int refreshEvery, double coverage) {
    if (window < 1 || refreshEvery < 1) {
      throw new IllegalArgumentException(
          "window and refreshEvery must be >= 1, were " + window + " and " + refreshEvery);
    }
    this.ring = new HamiShape[window];
    this.refreshEvery = refreshEvery;
    this.coverage = coverage;
  }

  /** Records the shape of a pod being scheduled. */
  public synchronized void add(HamiShape shape) {
    ring[next] = shape;
    next = (next + 1) % ring.length;
    size = Math.min(size + 1, ring.length);
    if (current == null || ++sinceRefresh >= refreshEvery) {
      sinceRefresh = 0;
      current =
          HamiWorkload.fromPopulation(List.copyOf(Arrays.asList(ring).subList(0, size)), coverage);
    }
  }

  /** The workload of the recent pods, or null before the first pod. */
  public synchronized @Nullable HamiWorkload current() {
    return current;
  }
}
