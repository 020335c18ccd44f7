package io.hami.plugins.vgpu;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The per-device fit of one vendor request (protocol §6.6): every check in HAMi's order with its
 * reason code, walking the sorted devices from the last to the first.
 */
public final class DeviceFitter {
  /** Above this many GPU sets the topology choice falls back to walk order. */
  static final long MAX_COMBINATIONS = 20_000;

  private DeviceFitter() {}

  /** Extra per-device admission, e.g. a namespace quota; {@code ResourceQuotaNotFit} on refusal. */
  @FunctionalInterface
  public interface QuotaCheck {
    QuotaCheck NONE = (vendor, memMiB, cores) -> true;

    boolean fits(String vendor, int memMiB, int cores);

    /** This check with picks already made for the same pod counted on top of each request. */
    default QuotaCheck plus(List<DevicePick> earlier) {
      if (this == NONE || earlier.isEmpty()) {
        return this;
      }
      Map<String, int[]> add = new HashMap<>();
      for (DevicePick p : earlier) {
        int[] a = add.computeIfAbsent(p.vendor(), k -> new int[2]);
        a[0] += p.memMiB();
        a[1] += p.cores();
      }
      QuotaCheck base = this;
      return (vendor, memMiB, cores) -> {
        int[] a = add.get(vendor);
        return a == null
            ? base.fits(vendor, memMiB, cores)
            : base.fits(vendor, memMiB + a[0], cores + a[1]);
      };
    }
  }

  /**
   * Picks {@code req.nums()} distinct devices for one container's request.
   *
   * @param sorted the node's devices of the request's vendor, sorted by the GPU policy
   * @param reasons receives one reason per refused device (and the partial-pick count on failure)
   * @return the picks, or null when the request does not fit
   */
  public static @Nullable List<DevicePick> fit(
      List<DeviceUsage> sorted,
      VendorRequest req,
      DeviceFilter filter,
      GpuPolicy policy,
      boolean numaBind,
      PairScores pairs,
      QuotaCheck quota,
      FitReasons reasons) {
    int need = req.nums();
    int cores = req.clampedCores();
    List<DeviceUsage> chosen = new ArrayList<>(need);
    List<DevicePick> picks = new ArrayList<>(need);
    boolean topology = policy.topologyAware() && need >= 1;
    int prevNuma = Integer.MIN_VALUE;
    // A MIG device is visited again after a pick, with that instance held, for the next instance.
    DeviceUsage revisit = null;
    for (int i = sorted.size() - 1; i >= 0; i--) {
      DeviceUsage d = revisit != null ? revisit : sorted.get(i);
      revisit = null;
      // Earlier picks of this request count toward the quota (at most need - 1 of them).
      QuotaCheck q =
          quota == QuotaCheck.NONE || picks.isEmpty()
              ? quota
              : quota.plus(picks.size() < need ? picks : picks.subList(0, need - 1));
      FitReason refused = check(d, req, cores, filter, policy, q);
      // Health, cordon and type come before the NUMA restart; the other checks after it.
      if (refused != null && refused.compareTo(FitReason.NUMA_NOT_FIT) < 0) {
        reasons.add(refused);
        continue;
      }
      if (numaBind && d.numa() != prevNuma) {
        if (!picks.isEmpty()) {
          // HAMi counts the picks a NUMA switch drops, but never topology candidates.
          if (!topology) {
            reasons.add(FitReason.NUMA_NOT_FIT, picks.size());
          }
          picks.clear();
          chosen.clear();
        }
        prevNuma = d.numa();
      }
      if (refused != null) {
        reasons.add(refused);
        continue;
      }
      DevicePick pick = pickOn(d, req, cores);
      picks.add(pick);
      chosen.add(d);
      if (pick.mig() != null && !(!topology && picks.size() == need)) {
        revisit = d.plus(1, pick.memMiB(), pick.cores()).plusMig(pick.mig().placement());
        i++;
      }
      if (!topology && picks.size() == need) {
        return picks;
      }
    }
    if (topology && picks.size() >= need) {
      return choose(chosen, picks, need, pairs);
    }
    if (!picks.isEmpty()) {
      reasons.add(FitReason.ALLOCATED_CARDS_INSUFFICIENT_REQUEST, picks.size());
    }
    return null;
  }

  /**
   * Whether a device could take one device of the request now, ignoring NUMA binding and the other
   * devices of the request (for plugins that reason about sets of usable devices).
   */
  public static boolean usable(DeviceUsage d, VendorRequest req, PodGpuOptions opts) {
    return check(d, req, req.clampedCores(), opts.filter(), opts.gpuPolicy(), QuotaCheck.NONE)
        == null;
  }

  /**
   * The first failing stateless check for a device, or null when it can take the request. {@link
   * FitReason#NUMA_NOT_FIT} is never returned: NUMA binding depends on the walk.
   */
  static @Nullable FitReason check(
      DeviceUsage d,
      VendorRequest req,
      int cores,
      DeviceFilter filter,
      GpuPolicy policy,
      QuotaCheck quota) {
    if (!d.healthy()) {
      return FitReason.CARD_NOT_HEALTH;
    }
    if (d.cordoned()) {
      return FitReason.CARD_CORDONED;
    }
    if (!d.vendor().equals(req.vendor()) || !filter.typeAllowed(d)) {
      return FitReason.CARD_TYPE_MISMATCH;
    }
    if (!filter.uuidAllowed(d)) {
      return FitReason.CARD_UUID_MISMATCH;
    }
    if (d.totalSlots() <= d.usedSlots()) {
      return FitReason.CARD_TIME_SLICING_EXHAUSTED;
    }
    if (policy.mutex() && d.usedSlots() > 0) {
      return FitReason.EXCLUSIVE_DEVICE_ALLOCATE_CONFLICT;
    }
    int mem = req.memOn(d.totalMemMiB());
    if (!quota.fits(req.vendor(), mem, cores)) {
      return FitReason.RESOURCE_QUOTA_NOT_FIT;
    }
    if (d.totalMemMiB() - d.usedMemMiB() < mem) {
      return FitReason.CARD_INSUFFICIENT_MEMORY;
    }
    if (d.totalCores() - d.usedCores() < cores) {
      return FitReason.CARD_INSUFFICIENT_CORE;
    }
    if (d.totalCores() == 100 && cores == 100 && d.usedSlots() > 0) {
      return FitReason.EXCLUSIVE_DEVICE_ALLOCATE_CONFLICT;
    }
    if (d.totalCores() != 0 && d.usedCores() == d.totalCores() && cores == 0) {
      return FitReason.CARD_COMPUTE_UNITS_EXHAUSTED;
    }
    if (d.dynamicMig() && migChoice(d, mem) == null) {
      return FitReason.CARD_MIG_TOPOLOGY_INFEASIBLE;
    }
    return null;
  }

  /**
   * The pick of one device for the request on a device that passed {@link #check}: on a dynamic MIG
   * device the instance's profile and placement, with the profile's memory and cores as the usage.
   */
  static DevicePick pickOn(DeviceUsage d, VendorRequest req, int cores) {
    int mem = req.memOn(d.totalMemMiB());
    if (d.dynamicMig()) {
      DevicePick.Mig mig = migChoice(d, mem);
      if (mig != null) {
        MigProfile p = profile(d, mig.profile());
        return new DevicePick(d.id(), req.vendor(), p.memoryMB(), Math.min(p.core(), 100), mig);
      }
    }
    return new DevicePick(d.id(), req.vendor(), mem, cores);
  }

  /**
   * The smallest profile (by memory, then in offered order) with at least {@code memMiB} and a
   * placement that overlaps none held on the device, with its first such placement; null when none.
   */
  static DevicePick.@Nullable Mig migChoice(DeviceUsage d, int memMiB) {
    MigProfile best = null;
    MigPlacement bestAt = null;
    for (MigProfile p : d.migProfiles()) {
      if (p.memoryMB() < memMiB || (best != null && p.memoryMB() >= best.memoryMB())) {
        continue;
      }
      MigPlacement free = freePlacement(p, d.migUsed());
      if (free != null) {
        best = p;
        bestAt = free;
      }
    }
    return best == null || bestAt == null ? null : new DevicePick.Mig(best.name(), bestAt);
  }

  private static @Nullable MigPlacement freePlacement(MigProfile p, List<MigPlacement> used) {
    for (MigPlacement at : p.placements()) {
      if (at.size() <= 0) {
        continue;
      }
      boolean clash = false;
      for (MigPlacement u : used) {
        if (at.start() < u.start() + Math.max(u.size(), 1) && u.start() < at.start() + at.size()) {
          clash = true;
          break;
        }
      }
      if (!clash) {
        return at;
      }
    }
    return null;
  }

  private static MigProfile profile(DeviceUsage d, String name) {
    for (MigProfile p : d.migProfiles()) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new IllegalStateException("no MIG profile " + name + " on " + d.id());
  }

  /** Topology-aware choice among more candidates than needed. */
  private static List<DevicePick> choose(
      List<DeviceUsage> cands, List<DevicePick> picks, int need, PairScores pairs) {
    int n = cands.size();
    if (n == need) {
      return picks;
    }
    if (combinations(n, need) > MAX_COMBINATIONS) {
      // Bounded work per node: take the first candidates in walk order.
      return new ArrayList<>(picks.subList(0, need));
    }
    if (need == 1) {
      int best = 0;
      long bestSum = Long.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        long sum = 0;
        for (int j = 0; j < n; j++) {
          if (i != j) {
            sum += pairs.score(cands.get(i).id(), cands.get(j).id());
          }
        }
        if (sum < bestSum) {
          bestSum = sum;
          best = i;
        }
      }
      return List.of(picks.get(best));
    }
    int[] comb = new int[need];
    for (int i = 0; i < need; i++) {
      comb[i] = i;
    }
    int[] best = comb.clone();
    long bestSum = Long.MIN_VALUE;
    while (true) {
      long sum = 0;
      for (int a = 0; a < need; a++) {
        for (int b = a + 1; b < need; b++) {
          sum += pairs.score(cands.get(comb[a]).id(), cands.get(comb[b]).id());
        }
      }
      if (sum > bestSum) {
        bestSum = sum;
        best = comb.clone();
      }
      int k = need - 1;
      while (k >= 0 && comb[k] == n - need + k) {
        k--;
      }
      if (k < 0) {
        break;
      }
      comb[k]++;
      for (int j = k + 1; j < need; j++) {
        comb[j] = comb[j - 1] + 1;
      }
    }
    List<DevicePick> out = new ArrayList<>(need);
    for (int i : best) {
      out.add(picks.get(i));
    }
    return out;
  }

  /** Number of combinations the topology choice enumerates: C(n, k). */
  static long combinations(int n, int k) {
    long c = 1;
    for (int i = 1; i <= k; i++) {
      c = c * (n - k + i) / i;
    }
    return c;
  }
}
