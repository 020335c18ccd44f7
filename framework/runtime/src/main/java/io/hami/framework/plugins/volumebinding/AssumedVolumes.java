package io.hami.framework.plugins.volumebinding;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The PVs that Reserve promised to claims of pods still in flight (between Reserve and the end of
 * PreBind), so that the next scheduling cycle does not hand the same PV to another claim before the
 * informer shows its claimRef. The in-memory side of kube's assume cache for PVs.
 *
 * <p>Concurrency: Reserve and Filter run on the scheduling thread, PreBind and Unreserve on binding
 * threads; the map is concurrent and every entry is owned by the pod that put it.
 */
final class AssumedVolumes {
  /** A PV promised to claim {@code claimKey} ({@code namespace/name}) by the pod {@code podUid}. */
  record Assumed(String claimKey, String podUid) {}

  private final Map<String, Assumed> byPv = new ConcurrentHashMap<>();

  /** The claim that {@code pvName} is promised to, or null. */
  @Nullable Assumed get(String pvName) {
    return byPv.get(pvName);
  }

  void assume(String pvName, String claimKey, String podUid) {
    byPv.put(pvName, new Assumed(claimKey, podUid));
  }

  /** Forgets every promise the pod made; idempotent. */
  void forgetPod(String podUid) {
    byPv.values().removeIf(a -> a.podUid().equals(podUid));
  }

  int size() {
    return byPv.size();
  }
}
