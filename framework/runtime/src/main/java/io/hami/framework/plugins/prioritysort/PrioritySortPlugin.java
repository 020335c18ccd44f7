package io.hami.framework.plugins.prioritysort;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.QueueSortPlugin;
import io.hami.framework.api.QueuedPod;
import io.hami.framework.plugins.helper.PodGroups;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Orders the active queue by pod priority (higher first), then by queue time (older first), as
 * kube-scheduler's PrioritySort does for pods without a pod group.
 *
 * <p>Deviation from kube-scheduler, for gang scheduling: the members of a pod group ({@code
 * spec.schedulingGroup} or the {@code pod-group.scheduling.hami.io/name} annotation) sort as one
 * block: by priority, then by the group's time instead of their own, then by group key, then by
 * their own queue time. Two gangs thus never interleave, so neither can hold half of what the other
 * needs while waiting at Permit. The group's time is the initial queue time of the first member the
 * sort meets, kept while the group has pods in the queue (at most an hour untouched): a sort key
 * must not change while the pod is in the queue. This is done here rather than in a separate
 * QueueSort plugin because every profile of a scheduler shares one queue and one QueueSort, and a
 * profile that enables GangScheduling without changing its QueueSort would otherwise let gangs
 * deadlock each other; pods without a group sort exactly as before.
 *
 * <p>Thread-safe: the queue calls it under its lock, from any thread.
 */
public final class PrioritySortPlugin implements QueueSortPlugin {
  public static final String NAME = "PrioritySort";

  private final Cache<String, Instant> groupTimes =
      CacheBuilder.newBuilder().expireAfterAccess(Duration.ofHours(1)).build();

  public static Plugin create(FrameworkHandle handle) {
    return new PrioritySortPlugin();
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, PrioritySortPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int compare(QueuedPod a, QueuedPod b) {
    int pa = priority(a);
    int pb = priority(b);
    if (pa != pb) {
      return Integer.compare(pb, pa);
    }
    String ga = PodGroups.key(a.pod());
    String gb = PodGroups.key(b.pod());
    if (ga == null && gb == null) {
      return a.timestamp().compareTo(b.timestamp());
    }
    int c = time(ga, a).compareTo(time(gb, b));
    if (c != 0) {
      return c;
    }
    if (ga == null || gb == null) {
      return ga == null ? -1 : 1;
    }
    c = ga.compareTo(gb);
    return c != 0 ? c : a.timestamp().compareTo(b.timestamp());
  }

  private Instant time(@Nullable String group, QueuedPod p) {
    if (group == null) {
      return p.timestamp();
    }
    try {
      return groupTimes.get(group, p::initialTimestamp);
    } catch (ExecutionException e) {
      return p.initialTimestamp();
    }
  }

  private static int priority(QueuedPod p) {
    Integer v = p.pod().getSpec() == null ? null : p.pod().getSpec().getPriority();
    return v == null ? 0 : v;
  }
}
