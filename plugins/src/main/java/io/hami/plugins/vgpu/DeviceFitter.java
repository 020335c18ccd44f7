package io.hami.plugins.vgpu;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import java.util.ArrayList;
import java.util.Comparator;
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
   * Picks {@code req.nums()} devices for one container's request: distinct devices, except that a
   * MIG-mode GPU is visited again after each pick and may take several instances.
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
      if (!topology && picks.size() == need) {
        return picks;
      }
      if (pick.mig() != null) {
        // The next instance on the same GPU: as in HAMi, the device's counters stay as they were
        // (the pod's own instances are not usage yet), only the placement is taken.
        revisit = d.plusMig(pick.mig().placement());
        i++;
      }
    }
    if (topology && picks.size() >= need) {
      // Instances of one GPU score alike, so the choice keeps a GPU's earliest instances: their
      // placements stay the ones HAMi gives the kept devices in order.
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
    if (d.migMode() && migChoice(d, mem) == null) {
      return FitReason.CARD_MIG_TOPOLOGY_INFEASIBLE;
    }
    return null;
  }

  /**
   * The pick of one device for the request on a device that passed {@link #check}: on a MIG-mode
   * device the instance's profile and placement, with the profile's memory and cores as the usage.
   */
  static DevicePick pickOn(DeviceUsage d, VendorRequest req, int cores) {
    int mem = req.memOn(d.totalMemMiB());
    if (d.migMode()) {
      DevicePick.Mig mig = migChoice(d, mem);
      if (mig != null) {
        MigProfile p = profile(d, mig.profile());
        return new DevicePick(d.id(), req.vendor(), p.memoryMB(), Math.min(p.core(), 100), mig);
      }
    }
    return new DevicePick(d.id(), req.vendor(), mem, cores);
  }

  /**
   * HAMi's instance choice: the profiles by memory, then by slice count (so {@code 1g.10gb} comes
   * before {@code 2g.10gb}), then in offered order; the first with at least {@code memMiB} and a
   * placement that overlaps none held on the device, with that placement. Null when none.
   */
  static DevicePick.@Nullable Mig migChoice(DeviceUsage d, int memMiB) {
    List<MigProfile> bySize = new ArrayList<>(d.migProfiles());
    bySize.sort(
        Comparator.comparingInt(MigProfile::memoryMB).thenComparingInt(MigProfile::sliceCount));
    for (MigProfile p : bySize) {
      if (p.memoryMB() < memMiB) {
        continue;
      }
      // Placements are looked up by name, as in HAMi: a repeated name uses the first profile's.
      MigPlacement free = freePlacement(profile(d, p.name()), d.migUsed());
      if (free != null) {
        return new DevicePick.Mig(p.name(), free);
      }
    }
    return null;
  }

  /**
   * The profile's first placement that overlaps none held: {@code 1g.*} and {@code 3g.*} instances
   * try the highest start first, the others the lowest, as HAMi does (small instances fill the top
   * of the GPU and leave the low starts to the larger profiles).
   */
  private static @Nullable MigPlacement freePlacement(MigProfile p, List<MigPlacement> used) {
    List<MigPlacement> order = new ArrayList<>(p.placements());
    Comparator<MigPlacement> byStart = Comparator.comparingInt(MigPlacement::start);
    order.sort(highFirst(p.name()) ? byStart.reversed() : byStart);
    for (MigPlacement at : order) {
      if (at.size() <= 0) {
        // An empty placement would be offered again and again; NVML never reports one.
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

  private static boolean highFirst(String profile) {
    return profile.startsWith("1g.") || profile.startsWith("3g.");
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
