package io.hami.plugins.topology;

import io.hami.plugins.vgpu.DeviceFitter;
import io.hami.plugins.vgpu.DeviceUsage;
import io.hami.plugins.vgpu.NodeDevices;
import io.hami.plugins.vgpu.PodGpuOptions;
import io.hami.plugins.vgpu.VendorRequest;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The best-connected set of usable GPUs for one multi-GPU request. */
final class GpuSets {
  /** Above this many candidate sets the search keeps the greedy answer. */
  static final long MAX_SETS = 5_000;

  private GpuSets() {}

  /** A chosen set and its summed pair score. */
  record Best(List<String> ids, long score) {}

  static @Nullable Best best(NodeDevices node, VendorRequest q, PodGpuOptions opts) {
    List<DeviceUsage> cands = new ArrayList<>();
    for (DeviceUsage d : node.devices()) {
      if (DeviceFitter.usable(d, q, opts)) {
        cands.add(d);
      }
    }
    int n = cands.size();
    int k = q.nums();
    if (n < k) {
      return null;
    }
    int[] comb = new int[k];
    for (int i = 0; i < k; i++) {
      comb[i] = i;
    }
    int[] best = comb.clone();
    long bestScore = Long.MIN_VALUE;
    long budget = MAX_SETS;
    while (budget-- > 0) {
      long s = 0;
      for (int a = 0; a < k; a++) {
        for (int b = a + 1; b < k; b++) {
          s += node.pairs().score(cands.get(comb[a]).id(), cands.get(comb[b]).id());
        }
      }
      if (s > bestScore) {
        bestScore = s;
        best = comb.clone();
      }
      int i = k - 1;
      while (i >= 0 && comb[i] == n - k + i) {
        i--;
      }
      if (i < 0) {
        break;
      }
      comb[i]++;
      for (int j = i + 1; j < k; j++) {
        comb[j] = comb[j - 1] + 1;
      }
    }
    List<String> ids = new ArrayList<>(k);
    for (int i : best) {
      ids.add(cands.get(i).id());
    }
    return new Best(ids, bestScore);
  }
}
