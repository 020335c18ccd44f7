package io.hami.framework.api;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One rejection {@link Status} per reason key, shared across pods and nodes: verdicts the framework
 * keeps for earlier pods then count as one status per reason in the scheduler's summary, and a full
 * cluster refusing alike costs no allocation. Bounded, since keys may come from pods (taint keys,
 * extended resource names); past the bound a fresh status is made per call. Thread-safe.
 *
 * @param <K> what identifies the reasons
 */
public final class Rejections<K> {

  /** Keys kept by default. */
  public static final int DEFAULT_MAX = 1024;

  private final Map<K, Status> byKey = new ConcurrentHashMap<>();
  private final int max;

  public Rejections() {
    this(DEFAULT_MAX);
  }

  public Rejections(int max) {
    this.max = max;
  }

  /** The shared rejection for {@code key}, made by {@code make} the first time. */
  public Status of(K key, Function<? super K, Status> make) {
    Status s = byKey.get(key);
    if (s != null) {
      return s;
    }
    s = make.apply(key);
    if (byKey.size() < max) {
      Status prev = byKey.putIfAbsent(key, s);
      return prev != null ? prev : s;
    }
    return s;
  }
}
