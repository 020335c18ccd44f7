package io.hami.framework.plugins.defaultbinder;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.BindPlugin;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.Status;
import io.hami.framework.bind.Binder;

/**
 * Binds through the scheduler's {@link Binder} ({@link FrameworkHandle#bind}): {@code pods/binding}
 * against a cluster, or the in-memory cluster's store, carrying the {@link BindingMetadata} that
 * PreBind plugins left in the cycle state.
 */
public final class DefaultBinderPlugin implements BindPlugin {
  public static final String NAME = "DefaultBinder";

  private final Binder binder;

  public DefaultBinderPlugin(Binder binder) {
    this.binder = binder;
  }

  public static Plugin create(FrameworkHandle handle) {
    return new DefaultBinderPlugin(handle::bind);
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, DefaultBinderPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    return binder.bind(pod, nodeName, BindingMetadata.of(state));
  }
}
