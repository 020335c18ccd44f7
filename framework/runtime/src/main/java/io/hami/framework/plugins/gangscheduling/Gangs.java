package io.hami.framework.plugins.gangscheduling;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.kube.PodPhases;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The members of every pod group this scheduler has seen, and where each stands: present (not
 * terminal), bound, reserved by this scheduler, or blocking the group because it fit nowhere.
 *
 * <p>Concurrency: every method holds this object's monitor, briefly, and calls nothing outside it;
 * callers act on the returned values (allow, reject, activate) after it is released.
 */
final class Gangs {

  private static final class Group {
    final Map<String, Pod> members = new LinkedHashMap<>();
    final Set<String> bound = new HashSet<>();
    final Set<String> reserved = new HashSet<>();
    final Map<String, String> blocked = new LinkedHashMap<>();

    /**
     * A member's Permit wait ended without the quorum (it timed out or the group was released): the
     * group stays back as a unit until enough members can be scheduled to make it whole.
     */
    boolean held;

    boolean isEmpty() {
      return members.isEmpty() && reserved.isEmpty() && blocked.isEmpty();
    }

    /** Members that may be scheduled now (not gated), counting {@code uid} if it is being. */
    int schedulable(@Nullable String uid) {
      int n = 0;
      boolean counted = false;
      for (Map.Entry<String, Pod> e : members.entrySet()) {
        boolean self = e.getKey().equals(uid);
        counted |= self;
        if (self || !gated(e.getValue())) {
          n++;
        }
      }
      return uid != null && !counted ? n + 1 : n;
    }

    List<String> reservedExcept(String uid) {
      List<String> out = new ArrayList<>(reserved);
      out.remove(uid);
      return out;
    }
  }

  /** The result of {@link #track}: whether the pod is a new member, the count, who is pending. */
  record Tracked(boolean added, int members, List<Pod> pending) {}

  /** Members waiting at Permit that a release must reject. */
  record Release(String key, List<String> waiting) {}

  /**
   * The result of {@link #quorum}.
   *
   * @param met whether {@code minCount} members have a place
   * @param waiting when met: the other reserved members, to allow
   * @param pending when not met: the members without a place that do not block, to activate
   */
  record Quorum(boolean met, List<String> waiting, List<Pod> pending) {}

  @GuardedBy("this")
  private final Map<String, Group> groups = new HashMap<>();

  @GuardedBy("this")
  private Group group(String key) {
    return groups.computeIfAbsent(key, k -> new Group());
  }

  @GuardedBy("this")
  private void dropIfEmpty(String key, Group g) {
    if (g.isEmpty()) {
      groups.remove(key);
    }
  }

  /** The number of members of group {@code key}, counting {@code uid} as one. */
  synchronized int memberCount(String key, String uid) {
    Group g = groups.get(key);
    if (g == null) {
      return 1;
    }
    return g.members.size() + (g.members.containsKey(uid) ? 0 : 1);
  }

  /** Records the latest version of a member; a terminal one leaves the group. */
  synchronized Tracked track(String key, Pod pod) {
    String uid = pod.getMetadata().getUid();
    Group g = group(key);
    if (PodPhases.isTerminal(pod)) {
      removeLocked(key, g, uid);
      return new Tracked(false, g.members.size(), List.of());
    }
    boolean added = g.members.put(uid, pod) == null;
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (node != null && !node.isEmpty()) {
      g.bound.add(uid);
      g.reserved.remove(uid);
    }
    return new Tracked(added, g.members.size(), pendingLocked(g, uid));
  }

  /** A member was deleted. */
  synchronized void remove(String key, String uid) {
    Group g = groups.get(key);
    if (g != null) {
      removeLocked(key, g, uid);
    }
  }

  /**
   * Whether group {@code key} is held back after a Permit wait ended without its quorum. A group
   * whose schedulable members (counting {@code uid}, the one being scheduled) reach {@code
   * minCount} is released from the hold and this returns false.
   */
  synchronized boolean held(String key, String uid, int minCount) {
    Group g = groups.get(key);
    if (g == null || !g.held) {
      return false;
    }
    if (g.schedulable(uid) >= minCount) {
      g.held = false;
      return false;
    }
    return true;
  }

  /**
   * Whether group {@code key} is held back and now has {@code minCount} schedulable members: its
   * parked members should be retried.
   */
  synchronized boolean heldAndComplete(String key, int minCount) {
    Group g = groups.get(key);
    return g != null && g.held && g.schedulable(null) >= minCount;
  }

  @GuardedBy("this")
  private void removeLocked(String key, Group g, String uid) {
    g.members.remove(uid);
    g.bound.remove(uid);
    g.reserved.remove(uid);
    g.blocked.remove(uid);
    dropIfEmpty(key, g);
  }

  /**
   * A member other than {@code uid} that blocks the group, as {@code namespace/name}; or null. A
   * member that blocks the group itself is never held back by another: trying it is how the group
   * unblocks, and two blockers waiting for each other would wait forever.
   */
  synchronized @Nullable String blocker(String key, String uid) {
    Group g = groups.get(key);
    if (g == null || g.blocked.containsKey(uid)) {
      return null;
    }
    for (Map.Entry<String, String> e : g.blocked.entrySet()) {
      if (!e.getKey().equals(uid)) {
        return e.getValue();
      }
    }
    return null;
  }

  /** The member fits nowhere: it blocks the group, and the reserved members must be released. */
  synchronized Release block(String key, Pod pod) {
    String uid = pod.getMetadata().getUid();
    Group g = group(key);
    g.blocked.put(uid, GangSchedulingPlugin.podKey(pod));
    return new Release(key, g.reservedExcept(uid));
  }

  /** The member has a place (it no longer blocks the group). */
  synchronized void reserve(String key, Pod pod) {
    String uid = pod.getMetadata().getUid();
    Group g = group(key);
    g.reserved.add(uid);
    g.blocked.remove(uid);
  }

  /**
   * The member lost its place; with {@code block}, it also blocks the group; with {@code waited}
   * (its Permit wait ended without the quorum), the group is held back. Returns the other reserved
   * members, to release.
   */
  synchronized Release unreserve(String key, Pod pod, boolean block, boolean waited) {
    String uid = pod.getMetadata().getUid();
    Group g = group(key);
    g.reserved.remove(uid);
    if (block) {
      g.blocked.put(uid, GangSchedulingPlugin.podKey(pod));
    }
    if (waited) {
      g.held = true;
    }
    Release r = new Release(key, g.reservedExcept(uid));
    dropIfEmpty(key, g);
    return r;
  }

  /** Whether the reserved member {@code pod} completes a quorum of {@code minCount}. */
  synchronized Quorum quorum(String key, Pod pod, int minCount) {
    String uid = pod.getMetadata().getUid();
    Group g = group(key);
    Set<String> placed = new HashSet<>(g.bound);
    placed.addAll(g.reserved);
    placed.add(uid);
    if (placed.size() >= minCount) {
      return new Quorum(true, g.reservedExcept(uid), List.of());
    }
    return new Quorum(false, List.of(), pendingLocked(g, uid));
  }

  static boolean gated(Pod p) {
    return p.getSpec() != null
        && p.getSpec().getSchedulingGates() != null
        && !p.getSpec().getSchedulingGates().isEmpty();
  }

  private static List<Pod> pendingLocked(Group g, String except) {
    List<Pod> out = new ArrayList<>();
    for (Map.Entry<String, Pod> e : g.members.entrySet()) {
      String uid = e.getKey();
      if (!uid.equals(except)
          && !g.bound.contains(uid)
          && !g.reserved.contains(uid)
          && !g.blocked.containsKey(uid)) {
        out.add(e.getValue());
      }
    }
    return out;
  }
}
