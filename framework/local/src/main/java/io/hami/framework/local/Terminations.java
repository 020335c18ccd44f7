package io.hami.framework.local;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pods being deleted gracefully (preemption victims), by key, with when they are gone. */
final class Terminations {
  private final Map<String, Instant> goneAt = new LinkedHashMap<>();

  boolean contains(String key) {
    return goneAt.containsKey(key);
  }

  void start(String key, Instant gone) {
    goneAt.put(key, gone);
  }

  void remove(String key) {
    goneAt.remove(key);
  }

  /**
   * Removes and returns, in the order they started, the keys whose time is not after {@code now}.
   */
  List<String> due(Instant now) {
    List<String> done = new ArrayList<>();
    for (Iterator<Map.Entry<String, Instant>> it = goneAt.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Instant> e = it.next();
      if (!e.getValue().isAfter(now)) {
        done.add(e.getKey());
        it.remove();
      }
    }
    return done;
  }
}
