package io.hami.cmd.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.PluginRef;
import io.hami.framework.config.ProfileConfig;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every scheduler configuration we ship parses, validates and builds with the full registry. */
class SchedulerConfigsTest {

  static List<Path> shipped() throws IOException {
    Path dir = Path.of("..", "..", "config", "scheduler");
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
      assertThat(files).isNotEmpty();
      return files;
    }
  }

  @Test
  void weighted_isTheDefaultWithTheWeightedSumAndTheTopologyPlugin() {
    var loader = new ConfigLoader(PluginRegistry.create());
    Path dir = Path.of("..", "..", "config", "scheduler");
    SchedulerConfiguration hami = loader.load(dir.resolve("scheduler-config.yaml"));
    SchedulerConfiguration weighted = loader.load(dir.resolve("weighted.yaml"));
    ProfileConfig h = hami.profiles().get(0);
    ProfileConfig w = weighted.profiles().get(0);
    assertThat(h.primaryScores()).containsExactly("vgpu");
    assertThat(w.primaryScores()).isEmpty();
    List<PluginRef> withTopology = new ArrayList<>();
    withTopology.add(new PluginRef("topology", null));
    withTopology.addAll(h.multiPoint().enabled());
    assertThat(w.multiPoint().enabled()).isEqualTo(withTopology);
    assertThat(w.pluginArgs()).isEqualTo(h.pluginArgs());
    assertThat(w.points()).isEqualTo(h.points());
    assertThat(weighted.parallelism()).isEqualTo(hami.parallelism());
    assertThat(weighted.leaderElection()).isEqualTo(hami.leaderElection());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shipped")
  void loadsAndBuilds(Path file) {
    var registry = PluginRegistry.create();
    SchedulerConfiguration c = new ConfigLoader(registry).load(file);
    Scheduler s = Scheduler.builder(c, registry).build();
    // Every profile the file declares is built, under its own scheduler name.
    assertThat(s.profiles()).isNotEmpty();
    assertThat(s.profiles().keySet())
        .containsExactlyInAnyOrderElementsOf(
            c.profiles().stream().map(p -> p.schedulerName()).toList());
  }
}
