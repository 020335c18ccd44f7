package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Plugins that implement {@link AutoCloseable} are closed once, last created first. */
class PluginLifecycleTest {
  private final List<String> closed = new CopyOnWriteArrayList<>();

  /** Records its close; the one named "Failing" throws from it. */
  final class Owning implements FilterPlugin, AutoCloseable {
    private final String name;

    Owning(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      return Status.success();
    }

    @Override
    public void close() {
      closed.add(name);
      if (name.equals("Failing")) {
        throw new IllegalStateException("close failed");
      }
    }
  }

  private Registry registry() {
    Registry registry = BuiltInPlugins.registry();
    for (String n : List.of("First", "Failing", "Last")) {
      registry.register(PluginRegistration.of(n, h -> new Owning(n)));
    }
    registry.register(
        PluginRegistration.of(
            "Broken",
            h -> {
              throw new IllegalArgumentException("no such device");
            }));
    return registry;
  }

  private static SchedulerConfiguration config(Registry registry, String... plugins) {
    StringBuilder y =
        new StringBuilder(
            "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                + "- schedulerName: hami-scheduler\n  plugins:\n    filter:\n      enabled:\n");
    for (String p : plugins) {
      y.append("      - name: ").append(p).append('\n');
    }
    return new ConfigLoader(registry).parse(y.toString(), "test");
  }

  @Test
  void close_closesInReverseOrderOfCreation_once_pastAFailure() {
    Registry registry = registry();
    Scheduler s = Scheduler.builder(config(registry, "First", "Failing", "Last"), registry).build();
    assertThat(closed).isEmpty();

    s.close();
    s.close();

    assertThat(closed).containsExactly("Last", "Failing", "First");
  }

  @Test
  void aProfileThatFailsToBuild_closesThePluginsItCreated() {
    Registry registry = registry();
    SchedulerConfiguration cfg = config(registry, "First", "Broken", "Last");

    assertThatThrownBy(() -> Scheduler.builder(cfg, registry).build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no such device");

    assertThat(closed).containsExactly("Last", "First");
  }
}
