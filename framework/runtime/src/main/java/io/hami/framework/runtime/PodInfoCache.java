package io.hami.framework.runtime;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * Memoizes derived pod data (effective requests, host ports) by UID and resourceVersion, so that
 * the scheduling attempt, the assume and the retries of a pod parse its quantities once. A pod
 * without a resourceVersion is not cached. Thread-safe.
 */
public final class PodInfoCache {
  private record Key(String uid, String resourceVersion) {}

  private final Cache<Key, PodInfo> cache;

  public PodInfoCache(long maximumSize) {
    this.cache =
        Caffeine.newBuilder()
            .maximumSize(maximumSize)
            .expireAfterAccess(Duration.ofMinutes(10))
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
    String rv = pod.getMetadata().getResourceVersion();
    if (uid == null || rv == null) {
      return PodInfo.of(pod);
    }
    PodInfo info = cache.get(new Key(uid, rv), k -> PodInfo.of(pod));
    // The same UID and version can arrive as a different object (assumed copy); keep the object.
    return info.pod() == pod ? info : new PodInfo(pod, info.requests(), info.nonZeroRequests(), info.hostPorts(), false);
  }

  public CacheStats stats() {
    return cache.stats();
  }

  public long size() {
    return cache.estimatedSize();
  }

  @Override
  public String toString() {
    return "PodInfoCache" + Objects.toString(cache.stats());
  }
}
