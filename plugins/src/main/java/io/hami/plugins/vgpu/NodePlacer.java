package io.hami.plugins.vgpu;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.NodeDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Places a pod's containers on one node's devices (protocol §6.6 "fitInDevices"): containers in
 * order, init containers each on a scratch copy of the node, app containers cumulatively; for each
 * vendor request, the node's devices of that vendor are sorted by the GPU policy and handed to
 * {@link DeviceFitter}. Stateless and thread-safe.
 */
public final class NodePlacer {

  /** The last full placement answer for a node. */
  private record Memo(
      NodeDevices view, PodRequests reqs, PodGpuOptions opts, @Nullable FitReasons result) {}

  private final ConcurrentHashMap<String, Memo> memo = new ConcurrentHashMap<>();
  private final boolean scoreByVendor;
  private final DeviceFitter.QuotaCheck quota;

  /**
   * @param scoreByVendor count a container's requests in the device score for devices of their
   *     vendor (HAMi compares the request type with the model string and never counts them)
   * @param quota extra per-device admission
   */
  public NodePlacer(boolean scoreByVendor, DeviceFitter.QuotaCheck quota) {
    this.scoreByVendor = scoreByVendor;
    this.quota = quota;
  }

  /** HAMi-compatible placer without quotas. */
  public static NodePlacer standard() {
    return new NodePlacer(true, DeviceFitter.QuotaCheck.NONE);
  }

  /**
   * Whether the pod fits on the node, with the reasons when not. Cheaper than {@link #place} for
   * the common pod (one container, one vendor, no NUMA binding), where the device order cannot
   * change the answer.
   */
  public @Nullable FitReasons feasible(NodeDevices node, PodRequests reqs, PodGpuOptions opts) {
    return feasible(node, reqs, opts, quota);
  }

  /** {@link #feasible(NodeDevices, PodRequests, PodGpuOptions)} under the pod's own quota check. */
  // Identity on purpose: node views are replaced, never changed, so the same view means the
  // memo is current, without comparing every device.
  @SuppressWarnings("ReferenceEquality")
  public @Nullable FitReasons feasible(
      NodeDevices node, PodRequests reqs, PodGpuOptions opts, DeviceFitter.QuotaCheck quota) {
    VendorRequest only = singleRequest(reqs);
    // One MIG-mode GPU can take several instances of a request: counting devices says nothing.
    boolean mig = only != null && anyMigMode(node.devices(), only.vendor());
    if (quota != DeviceFitter.QuotaCheck.NONE && (only == null || only.nums() > 1 || mig)) {
      // Quota answers depend on the namespace, not only the node view: no memo.
      return place(node, reqs, opts, null, quota).reasons();
    }
    if (only == null || opts.numaBind() || mig) {
      // Pods of one workload share their shape: remember the last answer per node view (views
      // are replaced, never changed, so identity means nothing changed).
      Memo m = memo.get(node.node());
      if (m != null && m.view() == node && m.reqs().equals(reqs) && m.opts().equals(opts)) {
        return m.result();
      }
      FitReasons r = place(node, reqs, opts, null).reasons();
      memo.put(node.node(), new Memo(node, reqs, opts, r));
      return r;
    }
    List<DeviceUsage> devices = node.devices();
    if (node.invalid() != null) {
      return FitReasons.of(FitReason.NODE_ANNOTATION_INVALID);
    }
    int vendorDevices = 0;
    for (int i = 0; i < devices.size(); i++) {
      if (devices.get(i).vendor().equals(only.vendor())) {
        vendorDevices++;
      }
    }
    if (vendorDevices < only.nums()) {
      return FitReasons.of(
          vendorDevices == 0 && devices.isEmpty()
              ? FitReason.NODE_UNREGISTERED
              : FitReason.NODE_INSUFFICIENT_DEVICE);
    }
    int ok = 0;
    int cores = only.clampedCores();
    FitReasons reasons = null; // allocated on the first refusal: most nodes refuse nothing
    for (int i = 0; i < devices.size(); i++) {
      DeviceUsage d = devices.get(i);
      if (!d.vendor().equals(only.vendor())) {
        continue;
      }
      FitReason r = DeviceFitter.check(d, only, cores, opts.filter(), opts.gpuPolicy(), quota);
      if (r == null) {
        ok++;
      } else {
        if (reasons == null) {
          // Counted over the request's devices, as HAMi counts them.
          reasons = new FitReasons(vendorDevices);
        }
        reasons.add(r);
      }
    }
    if (ok >= only.nums()) {
      return null;
    }
    if (reasons == null) {
      reasons = new FitReasons(vendorDevices);
    }
    if (ok > 0) {
      reasons.add(FitReason.ALLOCATED_CARDS_INSUFFICIENT_REQUEST, ok);
    }
    return reasons;
  }

  // Index loops here and in singleRequest: both run for every node Filter checks.
  private static boolean anyMigMode(List<DeviceUsage> devices, String vendor) {
    for (int i = 0; i < devices.size(); i++) {
      DeviceUsage d = devices.get(i);
      if (d.migMode() && d.vendor().equals(vendor)) {
        return true;
      }
    }
    return false;
  }

  /**
   * HAMi's exemption from the node's device count: an NVIDIA request on a node with a MIG-mode GPU,
   * unless the pod's {@code vgpu-mode} rules MIG out, may take several instances of one GPU.
   */
  private static boolean migRequest(
      VendorRequest r, List<DeviceUsage> vendorDevices, DeviceFilter filter) {
    String mode = filter.vgpuMode();
    return r.vendor().equals("NVIDIA")
        && (mode == null || mode.contains(NodeDevice.MODE_MIG))
        && anyMigMode(vendorDevices, r.vendor());
  }

  private static @Nullable VendorRequest singleRequest(PodRequests reqs) {
    VendorRequest found = null;
    ImmutableList<ImmutableList<VendorRequest>> containers = reqs.containers();
    for (int i = 0; i < containers.size(); i++) {
      ImmutableList<VendorRequest> c = containers.get(i);
      if (c.isEmpty()) {
        continue;
      }
      if (found != null || c.size() != 1) {
        return null;
      }
      found = c.get(0);
    }
    return found;
  }

  /**
   * Chooses devices for every container.
   *
   * @param preferred devices another plugin prefers; used when all of them pass the fit
   */
  public Placement place(
      NodeDevices node, PodRequests reqs, PodGpuOptions opts, @Nullable DeviceChoice preferred) {
    return place(node, reqs, opts, preferred, quota);
  }

  /**
   * {@link #place(NodeDevices, PodRequests, PodGpuOptions, DeviceChoice)} under the pod's own quota
   * check; the pod's earlier picks count toward later ones.
   */
  public Placement place(
      NodeDevices node,
      PodRequests reqs,
      PodGpuOptions opts,
      @Nullable DeviceChoice preferred,
      DeviceFitter.QuotaCheck quota) {
    if (preferred != null && preferred.node().equals(node.node())) {
      Placement p = placeAs(node, reqs, opts, preferred, quota);
      if (p != null) {
        return p;
      }
    }
    List<DeviceUsage> base = node.devices();
    if (node.invalid() != null) {
      return Placement.failed(node.node(), FitReasons.of(FitReason.NODE_ANNOTATION_INVALID));
    }
    if (base.isEmpty() && !reqs.isEmpty()) {
      return Placement.failed(node.node(), FitReasons.of(FitReason.NODE_UNREGISTERED));
    }
    DeviceUsage[] app = base.toArray(new DeviceUsage[0]);
    List<DevicePick> appPicks = new ArrayList<>();
    ImmutableList.Builder<ImmutableList<DevicePick>> out = ImmutableList.builder();
    List<ImmutableList<DevicePick>> all = new ArrayList<>();
    for (int c = 0; c < reqs.containers().size(); c++) {
      List<VendorRequest> rs = reqs.containers().get(c);
      if (rs.isEmpty()) {
        all.add(ImmutableList.of());
        continue;
      }
      boolean init = c < reqs.initCount();
      DeviceUsage[] work = init ? base.toArray(new DeviceUsage[0]) : app;
      // Scored once per container, on the usage before it; the order a sort leaves carries over
      // to the container's next request and, for app containers, to the next container.
      float[] scores = scores(work, rs, opts);
      List<DevicePick> ctr = new ArrayList<>();
      for (VendorRequest r : rs) {
        // An init container runs alone; app containers run together.
        List<DevicePick> earlier = init ? ctr : concat(appPicks, ctr);
        sort(work, scores, opts);
        List<DeviceUsage> sorted = ofVendor(work, r.vendor());
        if (sorted.size() < r.nums() && !migRequest(r, sorted, opts.filter())) {
          return Placement.failed(node.node(), FitReasons.of(FitReason.NODE_INSUFFICIENT_DEVICE));
        }
        // As HAMi reports them: the failing request's devices, not the pod's other requests.
        FitReasons reasons = new FitReasons(sorted.size());
        List<DevicePick> picks =
            DeviceFitter.fit(
                sorted,
                r,
                opts.filter(),
                opts.gpuPolicy(),
                opts.numaBind(),
                node.pairs(),
                quota.plus(earlier),
                reasons);
        if (picks == null) {
          return Placement.failed(node.node(), reasons);
        }
        apply(work, picks);
        ctr.addAll(picks);
      }
      if (!init) {
        appPicks.addAll(ctr);
      }
      all.add(ImmutableList.copyOf(ctr));
    }
    out.addAll(all);
    ImmutableList<ImmutableList<DevicePick>> containers = out.build();
    return new Placement(
        node.node(), containers, PodUsage.collapse(containers, reqs.initCount(), false), null);
  }

  /** The preferred placement if every listed device passes the fit, else null. */
  private static List<DevicePick> concat(List<DevicePick> a, List<DevicePick> b) {
    if (b.isEmpty()) {
      return a;
    }
    List<DevicePick> out = new ArrayList<>(a.size() + b.size());
    out.addAll(a);
    out.addAll(b);
    return out;
  }

  private @Nullable Placement placeAs(
      NodeDevices node,
      PodRequests reqs,
      PodGpuOptions opts,
      DeviceChoice choice,
      DeviceFitter.QuotaCheck quota) {
    if (node.invalid() != null || choice.containers().size() != reqs.containers().size()) {
      return null;
    }
    DeviceUsage[] base = node.devices().toArray(new DeviceUsage[0]);
    DeviceUsage[] app = base.clone();
    List<DevicePick> appPicks = new ArrayList<>();
    List<ImmutableList<DevicePick>> all = new ArrayList<>();
    for (int c = 0; c < reqs.containers().size(); c++) {
      List<VendorRequest> rs = reqs.containers().get(c);
      List<String> ids = choice.containers().get(c);
      boolean init = c < reqs.initCount();
      DeviceUsage[] work = init ? base.clone() : app;
      Set<String> used = new HashSet<>();
      List<DevicePick> ctr = new ArrayList<>();
      for (VendorRequest r : rs) {
        List<DeviceUsage> mine = new ArrayList<>();
        for (String id : ids) {
          DeviceUsage d = find(work, id);
          if (d != null && d.vendor().equals(r.vendor()) && used.add(id)) {
            mine.add(d);
          }
        }
        if (mine.size() != r.nums()) {
          return null;
        }
        int prevNuma = mine.get(0).numa();
        List<DevicePick> picks = new ArrayList<>();
        for (DeviceUsage d : mine) {
          List<DevicePick> earlier = concat(init ? List.of() : appPicks, concat(ctr, picks));
          if (DeviceFitter.check(
                      d, r, r.clampedCores(), opts.filter(), opts.gpuPolicy(), quota.plus(earlier))
                  != null
              || (opts.numaBind() && d.numa() != prevNuma)) {
            return null;
          }
          picks.add(DeviceFitter.pickOn(d, r, r.clampedCores()));
        }
        apply(work, picks);
        ctr.addAll(picks);
      }
      if (used.size() != ids.size()) {
        return null;
      }
      if (!init) {
        appPicks.addAll(ctr);
      }
      all.add(ImmutableList.copyOf(ctr));
    }
    ImmutableList<ImmutableList<DevicePick>> containers = ImmutableList.copyOf(all);
    return new Placement(
        node.node(), containers, PodUsage.collapse(containers, reqs.initCount(), false), null);
  }

  private static @Nullable DeviceUsage find(DeviceUsage[] work, String id) {
    for (DeviceUsage d : work) {
      if (d.id().equals(id)) {
        return d;
      }
    }
    return null;
  }

  /** Each device's score for one container's requests, in the order of {@code work}. */
  private float[] scores(DeviceUsage[] work, List<VendorRequest> ctrRequests, PodGpuOptions opts) {
    float[] scores = new float[work.length];
    for (int i = 0; i < work.length; i++) {
      scores[i] = DeviceScores.device(work[i], ctrRequests, opts.weights(), scoreByVendor);
    }
    return scores;
  }

  /**
   * Sorts the devices ascending by the GPU policy, in place and stably (the fit takes from the
   * end): devices the policy cannot tell apart keep their current order, as in HAMi.
   */
  static void sort(DeviceUsage[] work, float[] scores, PodGpuOptions opts) {
    // Insertion sort: a node has a handful of devices, and the scores travel with the devices.
    GpuPolicy policy = opts.gpuPolicy();
    boolean numaBind = opts.numaBind();
    for (int i = 1; i < work.length; i++) {
      DeviceUsage d = work[i];
      float s = scores[i];
      int j = i - 1;
      while (j >= 0 && policy.compare(work[j], scores[j], d, s, numaBind) > 0) {
        work[j + 1] = work[j];
        scores[j + 1] = scores[j];
        j--;
      }
      work[j + 1] = d;
      scores[j + 1] = s;
    }
  }

  /** The devices of one vendor, in the order of {@code work}. */
  private static List<DeviceUsage> ofVendor(DeviceUsage[] work, String vendor) {
    List<DeviceUsage> out = new ArrayList<>(work.length);
    for (DeviceUsage d : work) {
      if (d.vendor().equals(vendor)) {
        out.add(d);
      }
    }
    return out;
  }

  private static void apply(DeviceUsage[] work, List<DevicePick> picks) {
    for (DevicePick p : picks) {
      for (int i = 0; i < work.length; i++) {
        if (work[i].id().equals(p.id())) {
          work[i] = work[i].plus(1, p.memMiB(), p.cores());
          if (p.mig() != null) {
            work[i] = work[i].plusMig(p.mig().placement());
          }
          break;
        }
      }
    }
  }
}
