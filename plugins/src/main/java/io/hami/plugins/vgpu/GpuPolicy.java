package io.hami.plugins.vgpu;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The GPU policy ({@code hami.io/gpu-scheduler-policy}): the order in which a node's devices are
 * tried, plus the {@code mutex} and {@code topology-aware} behaviours of the fit. Parsed once per
 * pod; comparisons never look at strings.
 *
 * <p>Devices are sorted ascending by {@link #compare} and the fit walks the sorted list from the
 * end, so the "best" device sorts last. As HAMi v2.10 orders them:
 *
 * <ul>
 *   <li>{@code binpack}: score ascending (busiest last), then NUMA node; with {@code numa-bind},
 *       NUMA node descending, then score ascending.
 *   <li>{@code spread}, {@code topology-aware} and any other single value: score descending (idlest
 *       last), then NUMA node; with {@code numa-bind}, NUMA node first.
 *   <li>{@code mutex}: used slots descending, then NUMA node, with or without {@code numa-bind}.
 *   <li>{@code numa}: NUMA node ascending, then NVML index.
 *   <li>A comma chain compares key by key ({@code binpack}, {@code spread}, {@code numa}), then by
 *       NVML index; {@code mutex} and {@code topology-aware} in a chain only change the fit, never
 *       the order. With {@code numa-bind} the chain starts with the NUMA node.
 * </ul>
 *
 * Devices equal on every key compare as equal: the sort is stable, so they keep the order they had
 * (HAMi's insertion sort of a node's device list does the same).
 */
public final class GpuPolicy {

  /** One comparison key of the device order. */
  enum Key {
    SCORE_ASC,
    SCORE_DESC,
    NUMA_ASC,
    NUMA_DESC,
    USED_DESC,
    INDEX_ASC
  }

  public static final GpuPolicy SPREAD = parse("spread");
  public static final GpuPolicy BINPACK = parse("binpack");

  private final String wire;
  private final ImmutableList<Key> keys;
  private final ImmutableList<Key> numaBindKeys;
  private final boolean mutex;
  private final boolean topologyAware;

  private GpuPolicy(
      String wire, List<Key> keys, List<Key> numaBindKeys, boolean mutex, boolean topologyAware) {
    this.wire = wire;
    this.keys = ImmutableList.copyOf(keys);
    this.numaBindKeys = ImmutableList.copyOf(numaBindKeys);
    this.mutex = mutex;
    this.topologyAware = topologyAware;
  }

  /** Reads an annotation or config value; never fails (unknown values sort as spread). */
  public static GpuPolicy parse(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (!v.contains(",")) {
      return switch (v) {
        case "binpack" ->
            new GpuPolicy(
                v,
                List.of(Key.SCORE_ASC, Key.NUMA_ASC),
                List.of(Key.NUMA_DESC, Key.SCORE_ASC),
                false,
                false);
        case "mutex" ->
            new GpuPolicy(
                v,
                List.of(Key.USED_DESC, Key.NUMA_ASC),
                List.of(Key.USED_DESC, Key.NUMA_ASC),
                true,
                false);
        case "numa" ->
            new GpuPolicy(
                v,
                List.of(Key.NUMA_ASC, Key.INDEX_ASC),
                List.of(Key.NUMA_ASC, Key.INDEX_ASC),
                false,
                false);
        default ->
            new GpuPolicy(
                v,
                List.of(Key.SCORE_DESC, Key.NUMA_ASC),
                List.of(Key.NUMA_ASC, Key.SCORE_DESC),
                false,
                v.equals("topology-aware"));
      };
    }
    List<Key> chain = new ArrayList<>();
    boolean mutex = false;
    boolean topology = false;
    for (String item : Splitter.on(',').split(v)) {
      switch (item.trim()) {
        case "binpack" -> chain.add(Key.SCORE_ASC);
        case "spread" -> chain.add(Key.SCORE_DESC);
        case "numa" -> chain.add(Key.NUMA_ASC);
        case "mutex" -> mutex = true;
        case "topology-aware" -> topology = true;
        default -> {
          // Unknown chain items are ignored, as an unknown single value falls back to spread.
        }
      }
    }
    if (chain.isEmpty()) {
      chain.add(Key.SCORE_DESC);
    }
    List<Key> bound = new ArrayList<>(chain);
    if (bound.get(0) != Key.NUMA_ASC) {
      bound.add(0, Key.NUMA_ASC);
    }
    chain.add(Key.INDEX_ASC);
    bound.add(Key.INDEX_ASC);
    return new GpuPolicy(v, chain, bound, mutex, topology);
  }

  private static final ImmutableSet<String> KNOWN =
      ImmutableSet.of("binpack", "spread", "numa", "mutex", "topology-aware");

  /**
   * The items of {@code value} that {@link #parse} does not know and reads as spread (a single
   * value) or skips (a chain item); empty when every item is known.
   */
  public static List<String> unknownItems(String value) {
    List<String> out = new ArrayList<>();
    for (String item : value.trim().toLowerCase(Locale.ROOT).split(",", -1)) {
      if (!KNOWN.contains(item.trim())) {
        out.add(item.trim());
      }
    }
    return out;
  }

  /**
   * Whether the policy names {@code item} ({@code binpack}, {@code numa}, ...), alone or as an item
   * of its comma chain; case and spaces around items do not count.
   */
  public boolean names(String item) {
    String want = item.trim().toLowerCase(Locale.ROOT);
    for (String i : Splitter.on(',').trimResults().split(wire)) {
      if (i.equals(want)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a device already used by another pod is refused ({@code mutex}). */
  public boolean mutex() {
    return mutex;
  }

  /** Whether multi-device picks are chosen by topology pair scores. */
  public boolean topologyAware() {
    return topologyAware;
  }

  /** The value this policy was read from (lowercase). */
  public String wireName() {
    return wire;
  }

  /**
   * Compares two devices with their scores; negative when {@code a} sorts first (is tried later),
   * zero when the policy does not tell them apart.
   */
  public int compare(DeviceUsage a, float scoreA, DeviceUsage b, float scoreB, boolean numaBind) {
    // Index loop: called for every pair of devices a placement sorts, an iterator each time.
    ImmutableList<Key> ks = numaBind ? numaBindKeys : keys;
    for (int i = 0; i < ks.size(); i++) {
      Key k = ks.get(i);
      int c =
          switch (k) {
            case SCORE_ASC -> Float.compare(scoreA, scoreB);
            case SCORE_DESC -> Float.compare(scoreB, scoreA);
            case NUMA_ASC -> Integer.compare(a.numa(), b.numa());
            case NUMA_DESC -> Integer.compare(b.numa(), a.numa());
            case USED_DESC -> Integer.compare(b.usedSlots(), a.usedSlots());
            case INDEX_ASC -> Integer.compare(a.index(), b.index());
          };
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GpuPolicy p && p.wire.equals(wire);
  }

  @Override
  public int hashCode() {
    return wire.hashCode();
  }

  @Override
  public String toString() {
    return wire;
  }
}
