package io.hami.framework.plugins.prioritysort;

import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.QueueSortPlugin;
import io.hami.framework.api.QueuedPod;

/** Orders the active queue by pod priority (higher first), then by queue time (older first). */
public final class PrioritySortPlugin implements QueueSortPlugin {
  public static final String NAME = "PrioritySort";

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
    return a.timestamp().compareTo(b.timestamp());
  }

  private static int priority(QueuedPod p) {
    Integer v = p.pod().getSpec() == null ? null : p.pod().getSpec().getPriority();
    return v == null ? 0 : v;
  }
}
