package io.hami.framework.runtime;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.framework.api.HostPort;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Resources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Memoizes what the scheduler derives from a pod's containers (effective requests, scoring
 * requests, host ports) by UID. An entry is reused while the containers, init containers and
 * overhead are unchanged, so the scheduling attempt, the assume, the retries and the bound copy of
 * a pod parse its quantities once; any other change (status, annotations, node name) keeps the
 * entry. The pod objects themselves are not retained. Thread-safe.
 */
public final class PodInfoCache {
  private record Derived(
      @Nullable List<Container> containers,
      @Nullable List<Container> initContainers,
      @Nullable Map<String, Quantity> overhead,
      Resources requests,
      Resources nonZero,
      List<HostPort> ports) {

    boolean matches(PodSpec spec) {
      return Objects.equals(containers, spec.getContainers())
          && Objects.equals(initContainers, spec.getInitContainers())
          && Objects.equals(overhead, spec.getOverhead());
    }
  }

  private final Cache<String, Derived> cache;

  public PodInfoCache(long maximumSize) {
    this.cache =
        Caffeine.newBuilder()
            .maximumSize(maximumSize)
            .expireAfterAccess(Duration.ofMinutes(30))
            .recordStats()
            .build();
  }

  /**
   * Returns the pod's info.
   *
   * @throws IllegalArgumentException if a quantity cannot be parsed
   */
  public PodInfo get(Pod pod) {
    String uid = pod.getMetadata().getUid();
    PodSpec spec = pod.getSpec();
    if (uid == null || spec == null) {
      return PodInfo.of(pod);
    }
    Derived d = cache.getIfPresent(uid);
    if (d == null || !d.matches(spec)) {
      PodInfo fresh = PodInfo.of(pod);
      cache.put(
          uid,
          new Derived(
              spec.getContainers(),
              spec.getInitContainers(),
              spec.getOverhead(),
              fresh.requests(),
              fresh.nonZeroRequests(),
              fresh.hostPorts()));
      return fresh;
    }
    return new PodInfo(pod, d.requests(), d.nonZero(), d.ports(), false);
  }

  /** Drops the entry of a deleted pod. */
  public void invalidate(String uid) {
    cache.invalidate(uid);
  }

  public CacheStats stats() {
    return cache.stats();
  }

  public long size() {
    return cache.estimatedSize();
  }
}
