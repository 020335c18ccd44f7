package io.hami.plugins.vgpu;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Counts of {@link FitReason}s for one node, with HAMi's message form {@code "1/8
 * CardInsufficientMemory, 7/8 CardTimeSlicingExhausted"}. Not thread-safe: one per node and fit.
 */
// One per node and fit on the Filter path: counts indexed by ordinal, where an EnumMap would box.
@SuppressWarnings("EnumOrdinal")
public final class FitReasons {
  private final int[] counts = new int[FitReason.values().length];
  private final int total;

  /** Starts counting for a node with {@code totalDevices} devices. */
  public FitReasons(int totalDevices) {
    this.total = totalDevices;
  }

  /** A node-level reason alone, e.g. {@code NodeInsufficientDevice}. */
  public static FitReasons of(FitReason nodeReason) {
    FitReasons r = new FitReasons(0);
    r.add(nodeReason);
    return r;
  }

  public void add(FitReason reason) {
    counts[reason.ordinal()]++;
  }

  public void add(FitReason reason, int n) {
    counts[reason.ordinal()] += n;
  }

  public int count(FitReason reason) {
    return counts[reason.ordinal()];
  }

  public boolean isEmpty() {
    for (int c : counts) {
      if (c != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Bit {@code r.ordinal()} set for each reason {@code r} present: the set {@link #codes} names.
   */
  public long presence() {
    long bits = 0;
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 0) {
        bits |= 1L << i;
      }
    }
    return bits;
  }

  /** The non-zero counts, in check order. */
  public Map<FitReason, Integer> asMap() {
    Map<FitReason, Integer> m = new EnumMap<>(FitReason.class);
    for (FitReason r : FitReason.values()) {
      if (counts[r.ordinal()] != 0) {
        m.put(r, counts[r.ordinal()]);
      }
    }
    return m;
  }

  /** The reason codes present, sorted as strings (one per node in aggregated pod messages). */
  public List<String> codes() {
    List<String> out = new ArrayList<>();
    for (FitReason r : FitReason.values()) {
      if (counts[r.ordinal()] != 0) {
        out.add(r.code());
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * HAMi's per-node message: {@code "<n>/<devices> <Reason>"} sorted and joined by {@code ", "}; a
   * node-level reason ({@code NodeInsufficientDevice}, ...) stands without counts, as HAMi reports
   * it.
   */
  public String message() {
    return String.join(", ", parts());
  }

  /** The parts of {@link #message()}, sorted: {@code "1/8 CardInsufficientMemory"}, ... */
  public List<String> parts() {
    List<String> parts = new ArrayList<>();
    for (FitReason r : FitReason.values()) {
      int c = counts[r.ordinal()];
      if (c != 0) {
        parts.add(r.nodeLevel() ? r.code() : c + "/" + total + " " + r.code());
      }
    }
    parts.sort(null);
    return parts;
  }

  @Override
  public String toString() {
    return message();
  }

  /**
   * {@link #parts()}, each shortage with what it is measured against on {@code devices} ({@code 2/2
   * CardInsufficientMemory (cards of up to 81920 MiB, at most 1200 MiB free)}).
   */
  public List<String> partsWithCapacity(List<DeviceUsage> devices) {
    List<String> out = new ArrayList<>();
    for (String part : parts()) {
      out.add(part + capacity(part, devices));
    }
    return out;
  }

  /** What a shortage reason is measured against on the node's devices; empty for other reasons. */
  private static String capacity(String part, List<DeviceUsage> devices) {
    if (devices.isEmpty()) {
      return "";
    }
    if (part.endsWith(FitReason.NODE_INSUFFICIENT_DEVICE.code())) {
      return " (the node has " + devices.size() + (devices.size() == 1 ? " GPU)" : " GPUs)");
    }
    int total = 0;
    int free = 0;
    if (part.endsWith(FitReason.CARD_INSUFFICIENT_MEMORY.code())) {
      for (DeviceUsage d : devices) {
        total = Math.max(total, d.totalMemMiB());
        free = Math.max(free, d.freeMemMiB());
      }
      return " (cards of up to " + total + " MiB, at most " + free + " MiB free)";
    }
    if (part.endsWith(FitReason.CARD_INSUFFICIENT_CORE.code())) {
      for (DeviceUsage d : devices) {
        total = Math.max(total, d.totalCores());
        free = Math.max(free, d.freeCores());
      }
      return " (cards of up to " + total + " cores, at most " + free + " free)";
    }
    return "";
  }
}
