package io.hami.framework.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.plugins.noderesources.NodeResourcesFitArgs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
  private final ConfigLoader loader = new ConfigLoader(BuiltInPlugins.registry());

  private static final String HEADER = "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n";

  @Test
  void minimalConfig_getsDefaults() {
    SchedulerConfiguration c = loader.parse(HEADER, "t");
    assertThat(c.parallelism()).isEqualTo(16);
    assertThat(c.podInitialBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.podMaxBackoff()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.podMaxInUnschedulablePods()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.profiles())
        .singleElement()
        .extracting(ProfileConfig::schedulerName)
        .isEqualTo("hami-scheduler");
  }

  @Test
  void primaryScore_isReadPerProfile_aNameOrAList_blankMeaningTheWeightedSum() {
    SchedulerConfiguration c =
        loader.parse(
            HEADER
                + "profiles:\n- schedulerName: a\n  primaryScore: vgpu\n"
                + "- schedulerName: b\n  primaryScore: ''\n- schedulerName: c\n"
                + "- schedulerName: d\n  primaryScore: [nodelock, vgpu]\n",
            "t");
    assertThat(c.profiles())
        .extracting(ProfileConfig::primaryScores)
        .containsExactly(List.of("vgpu"), List.of(), List.of(), List.of("nodelock", "vgpu"));
  }

  @Test
  void primaryScore_malformed_namesFieldAndValue() {
    record Case(String yaml, String field, String message) {}
    List<Case> cases =
        List.of(
            new Case("{a: 1}", "primaryScore", "must be a plugin name or a list of them"),
            new Case("[vgpu, 3]", "primaryScore[1]", "must be a plugin name"),
            new Case("[vgpu, '']", "primaryScore[1]", "must be a plugin name"),
            new Case("[vgpu, vgpu]", "primaryScore[1]", "listed twice"));
    for (Case tc : cases) {
      assertThatThrownBy(
              () -> loader.parse(HEADER + "profiles:\n- primaryScore: " + tc.yaml() + "\n", "b"))
          .as(tc.yaml())
          .isInstanceOfSatisfying(
              ConfigException.class,
              e ->
                  assertThat(e.errors())
                      .singleElement()
                      .asString()
                      .contains(tc.field())
                      .contains(tc.message()));
    }
  }

  @Test
  void pluginArgs_mergeOverDefaults() {
    SchedulerConfiguration c =
        loader.parse(
            HEADER
                + "profiles:\n- schedulerName: s\n  pluginConfig:\n  - name: NodeResourcesFit\n"
                + "    args:\n      scoringStrategy:\n        type: MostAllocated\n"
                + "        resources: [{name: cpu, weight: 2}]\n",
            "t");
    NodeResourcesFitArgs a =
        (NodeResourcesFitArgs) c.profiles().get(0).pluginArgs().get("NodeResourcesFit");
    assertThat(a.scoringStrategy().type()).isEqualTo("MostAllocated");
    assertThat(a.ignoredResources()).containsAll(NodeResourcesFitArgs.DEFAULT_IGNORED_RESOURCES);
    assertThat(a.ignoredResources()).contains("nvidia.com/gpumem", "nvidia.com/gpucores");
  }

  @Test
  void everyErrorIsReportedWithItsPath() {
    String yaml =
        "apiVersion: hami.io/v2\nkind: SchedulerConfiguration\nparallelism: 0\n"
            + "podInitialBackoffSeconds: 20\nbogus: 1\n"
            + "profiles:\n"
            + "- schedulerName: a\n  plugins:\n    score:\n      enabled:\n"
            + "      - {name: NodeResourcesFit, weight: 0}\n      - {name: NoSuchPlugin}\n"
            + "    filter:\n      enabled:\n      - {name: NodePorts, weight: 3}\n"
            + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
            + "      scoringStrategy: {type: Balanced, resources: [{name: cpu, weight: 500}]}\n"
            + "- schedulerName: a\n";
    assertThatThrownBy(() -> loader.parse(yaml, "bad.yaml"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.errors())
                    .containsExactlyInAnyOrder(
                        "apiVersion: invalid value \"hami.io/v2\": must be hami.io/v1",
                        "parallelism: invalid value 0: must be at least 1",
                        "podMaxBackoffSeconds: invalid value 10: must not be less than podInitialBackoffSeconds",
                        "bogus: unknown field",
                        "profiles[0].plugins.score.enabled[0].weight: invalid value 0: must be in 1..100",
                        "profiles[0].plugins.score.enabled[1].name: invalid value \"NoSuchPlugin\": no plugin registered with this name",
                        "profiles[0].plugins.filter.enabled[0].weight: only allowed under score and multiPoint enabled lists",
                        "profiles[0].pluginConfig[0].args.scoringStrategy.type: invalid value \"Balanced\": must be one of LeastAllocated, MostAllocated",
                        "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: invalid value 500: must be in 1..100",
                        "profiles[1].schedulerName: invalid value \"a\": duplicate scheduler name"));
  }

  @Test
  void malformedArgs_reportTheFieldPath() {
    String yaml =
        HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
            + "      ignoredResources: 7\n      extra: true\n";
    assertThatThrownBy(() -> loader.parse(yaml, "t"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.errors())
                    .singleElement()
                    .asString()
                    .startsWith("profiles[0].pluginConfig[0].args."));
  }

  @Test
  void notYaml_andEmpty_areErrors() {
    assertThatThrownBy(() -> loader.parse("a: [", "t")).isInstanceOf(ConfigException.class);
    assertThatThrownBy(() -> loader.parse("", "t")).hasMessageContaining("empty configuration");
    assertThatThrownBy(() -> loader.parse("- 1\n", "t")).hasMessageContaining("must be a mapping");
  }

  @Test
  void missingFile_isAConfigError() {
    assertThatThrownBy(() -> loader.load(Path.of("/nonexistent/x.yaml")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read");
  }
}
