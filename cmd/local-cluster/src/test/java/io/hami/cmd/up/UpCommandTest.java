package io.hami.cmd.up;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class UpCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  @Test
  void help_listsEveryFlag() {
    assertThat(run("up", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: hami up")
        .contains("--nodes")
        .contains("--gpus-per-node")
        .contains("--gpu-memory")
        .contains("--split-count")
        .contains("--without-scheduler")
        .contains("--work-dir");
  }

  static Stream<Arguments> badFlags() {
    return Stream.of(
        Arguments.of(new String[] {"--nodes", "0"}, "--nodes: 0 is not in 1..64"),
        Arguments.of(new String[] {"--nodes", "65"}, "--nodes: 65 is not in 1..64"),
        Arguments.of(new String[] {"--gpus-per-node", "0"}, "--gpus-per-node: 0 is not in 1..16"),
        Arguments.of(new String[] {"--gpus-per-node", "17"}, "--gpus-per-node: 17 is not in 1..16"),
        Arguments.of(
            new String[] {"--gpu-memory", "100"}, "--gpu-memory: 100 MiB is not in 1024..1048576"),
        Arguments.of(new String[] {"--split-count", "0"}, "--split-count: 0 is not in 1..1024"),
        Arguments.of(
            new String[] {"--split-count", "2000"}, "--split-count: 2000 is not in 1..1024"),
        Arguments.of(new String[] {"--gpu-model", " "}, "--gpu-model: \" \" is not a GPU name"));
  }

  @ParameterizedTest
  @MethodSource("badFlags")
  void badValue_exits2NamingTheFlagAndValue(String[] flags, String message) {
    String[] args =
        Stream.concat(Stream.of("up", "--work-dir", dir.resolve("w").toString()), Stream.of(flags))
            .toArray(String[]::new);

    assertThat(run(args)).isEqualTo(UpCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("hami up: " + message);
  }

  @Test
  void notANumber_exits2NamingTheFlag() {
    assertThat(run("up", "--nodes", "many")).isEqualTo(UpCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("--nodes").contains("many");
  }

  @Test
  void everyProblemIsReported() {
    assertThat(
            run(
                "up",
                "--nodes",
                "0",
                "--split-count",
                "0",
                "--work-dir",
                dir.resolve("w").toString()))
        .isEqualTo(UpCommand.EXIT_USAGE);
    assertThat(err.toString()).contains("--nodes: 0").contains("--split-count: 0");
  }

  @Test
  void workDirWithFiles_isRefused_soThatNothingOfTheUsersIsRemoved() throws IOException {
    Files.writeString(dir.resolve("keep.txt"), "mine");

    assertThat(run("up", "--work-dir", dir.toString())).isEqualTo(UpCommand.EXIT_USAGE);
    assertThat(err.toString())
        .contains("--work-dir: " + dir + " exists and is not an empty directory");
    assertThat(dir.resolve("keep.txt")).exists();
  }

  @Test
  void workDirTooLongForUnixSockets_isRefused() {
    Path deep = dir.resolve("a".repeat(80));

    assertThat(PlaygroundSpec.problems(1, 1, 16384, "T4", 10, deep))
        .singleElement()
        .asString()
        .startsWith("--work-dir: " + deep + " is too long");
  }

  @Test
  void spec_rejectsBadValuesAtConstruction() {
    assertThatThrownBy(() -> new PlaygroundSpec(0, 1, 16384, "T4", 10, dir.resolve("w")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--nodes: 0");
    assertThat(new PlaygroundSpec(3, 1, 16384, "T4", 10, dir.resolve("w")).nodeNames())
        .containsExactly("gpu-node-1", "gpu-node-2", "gpu-node-3");
  }

  private static Path checkout(Path root) throws IOException {
    Files.createDirectories(root.resolve("test-e2e/bin"));
    Files.createDirectories(root.resolve("config/scheduler"));
    Files.createDirectories(root.resolve("config/deploy/common"));
    Files.createDirectories(root.resolve("config/samples"));
    Files.writeString(root.resolve("test-e2e/bin/build-control-plane.sh"), "");
    Files.writeString(root.resolve("config/scheduler/scheduler-config.yaml"), "");
    Files.writeString(root.resolve("config/device-config.yaml"), "");
    Files.writeString(root.resolve("config/deploy/common/webhook.yaml"), "");
    return root;
  }

  @Test
  void home_fromTheEnvironment() throws IOException {
    Path root = checkout(dir.resolve("repo"));

    assertThat(HamiHome.locate(root.toString(), Path.of("/"), null).root()).isEqualTo(root);
  }

  @Test
  void home_fromTheEnvironment_mustBeACheckout() {
    assertThatThrownBy(() -> HamiHome.locate(dir.toString(), Path.of("/"), null))
        .hasMessageStartingWith(
            "HAMI_HOME="
                + dir
                + " is not a hami checkout: it lacks test-e2e/bin/build-control-plane.sh");
  }

  @Test
  void home_walksUpFromTheWorkingDirectory_thenFromTheJar() throws IOException {
    Path root = checkout(dir.resolve("repo"));
    Path inside = Files.createDirectories(root.resolve("cmd/cli/src"));
    Path jar = root.resolve("cmd/cli/target/hami.jar");

    assertThat(HamiHome.locate(null, inside, null).root()).isEqualTo(root);
    assertThat(HamiHome.locate("", dir, jar).root()).isEqualTo(root);
  }

  @Test
  void home_notFound_saysWhereItLooked() {
    assertThatThrownBy(() -> HamiHome.locate(null, dir, dir.resolve("x.jar")))
        .hasMessageContaining("cannot find the hami checkout")
        .hasMessageContaining(dir.toString())
        .hasMessageContaining("set HAMI_HOME");
  }

  @Test
  void instructions_nameTheKubeconfigTheCommandsAndEverySample() throws IOException {
    Path samples = Files.createDirectories(dir.resolve("samples"));
    Files.writeString(
        samples.resolve("gpu-slice.yaml"),
        "# A slice of one GPU: 4096 MiB\n# of memory. More.\napiVersion: v1\nkind: Pod\n");
    Files.writeString(
        samples.resolve("inference-deployment.yaml"),
        "# Replicas.\napiVersion: apps/v1\nkind: Deployment\n");
    Path kubeconfig = dir.resolve("admin.kubeconfig");
    PlaygroundSpec spec = new PlaygroundSpec(2, 4, 16384, "Tesla T4", 10, dir.resolve("w"));

    String text =
        Instructions.render(
            "https://127.0.0.1:6443",
            kubeconfig,
            spec.workDir(),
            spec.workDir().resolve("hami-up.log"),
            spec,
            "hami-scheduler",
            true,
            "http://127.0.0.1:41234/ui/",
            samples);

    assertThat(text)
        .contains("kubeconfig  " + kubeconfig)
        .contains("export KUBECONFIG=" + kubeconfig)
        .contains("kubectl apply -f " + samples.resolve("gpu-slice.yaml"))
        .contains("kubectl get pods -o wide")
        .contains("cluster view http://127.0.0.1:41234/ui/")
        .contains("logs        " + spec.workDir().resolve("hami-up.log"))
        .contains("gpu-node-1, gpu-node-2: 4 x Tesla T4 (16384 MiB, 10 vGPUs each)")
        .contains("gpu-slice.yaml             A slice of one GPU: 4096 MiB of memory.\n")
        .contains("inference-deployment.yaml  Replicas. [a Deployment: it makes no pods here")
        .contains("Ctrl-C");
  }

  @Test
  void instructions_withoutScheduler_sayThatGpuPodsWaitForOne() throws IOException {
    Path samples = Files.createDirectories(dir.resolve("samples"));
    Files.writeString(samples.resolve("gpu-slice.yaml"), "# A slice.\napiVersion: v1\nkind: Pod\n");
    PlaygroundSpec spec = new PlaygroundSpec(1, 2, 16384, "Tesla T4", 10, dir.resolve("w"));

    String text =
        Instructions.render(
            "https://127.0.0.1:6443",
            dir.resolve("admin.kubeconfig"),
            spec.workDir(),
            null,
            spec,
            "hami-scheduler",
            false,
            null,
            samples);

    assertThat(text)
        .contains(
            "scheduler   none (--without-scheduler): GPU pods stay Pending until you run a"
                + " scheduler named hami-scheduler against this kubeconfig")
        .doesNotContain("the webhook sends every GPU pod to it")
        .doesNotContain("cluster view");
  }

  @Test
  void withoutScheduler_isAFlag_andBadValuesAreStillRefused() {
    assertThat(run("up", "--without-scheduler", "--nodes", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--nodes: 0 is not in 1..64");
    CommandLine cl = hami();
    cl.parseArgs("up", "--without-scheduler");
    UpCommand up = cl.getSubcommands().get("up").getCommand();
    assertThat(up.withoutScheduler).isTrue();
    cl = hami();
    cl.parseArgs("up");
    assertThat(((UpCommand) cl.getSubcommands().get("up").getCommand()).withoutScheduler).isFalse();
  }

  @Test
  void instructions_listTheShippedSamples() {
    Path samples = HamiHome.locate(null, Path.of(""), null).samples();

    assertThat(Instructions.samples(samples))
        .extracting(Instructions.Sample::file)
        .contains("gpu-slice.yaml", "whole-gpu.yaml");
    assertThat(Instructions.samples(samples)).allSatisfy(s -> assertThat(s.summary()).isNotBlank());
  }

  /**
   * {@code hami} with only this subcommand; every exception is a usage error, as in HamiCommand.
   */
  static CommandLine hami() {
    CommandLine cl =
        new CommandLine(CommandSpec.create().name("hami")).addSubcommand(UpCommand.class);
    cl.setExitCodeExceptionMapper(t -> 2);
    return cl;
  }
}
