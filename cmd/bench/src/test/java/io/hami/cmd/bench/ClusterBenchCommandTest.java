package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class ClusterBenchCommandTest {

  private static String[] run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void badBaseline_isAConfigError() {
    String[] r = run("bench", "cluster", "--workload", "x.yaml", "--baseline", "hami");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--baseline: invalid value \"hami\": must be one of ceiling, none");
  }

  @Test
  void badQps_isAConfigError() {
    String[] r = run("bench", "cluster", "--workload", "x.yaml", "--qps", "0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--qps: invalid value 0.0: must be in 0.1..100000");
  }

  @Test
  void kubeconfigHelp_namesTheLocalControlPlaneDefault() {
    String[] r = run("bench", "cluster", "--help");
    assertThat(r[1].replaceAll("\\s+", " "))
        .contains("--kubeconfig=FILE")
        .contains("start a local etcd and kube-apiserver");
  }

  @Test
  void unreadableKubeconfig_isAConfigError(@TempDir Path dir) {
    String[] r =
        run(
            "bench",
            "cluster",
            "--workload",
            "x.yaml",
            "--kubeconfig",
            dir.resolve("missing").toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--kubeconfig: cannot read " + dir.resolve("missing"));
  }

  @Test
  void invalidWorkload_listsEveryErrorAndExits2(@TempDir Path dir) throws IOException {
    Path w = dir.resolve("w.yaml");
    Files.writeString(w, "name: X\nnodes: {count: -1}\npods: {count: 1, shapes: [{gpus: 1}]}\n");
    String[] r = run("bench", "cluster", "--workload", w.toString());
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .contains("nodes.count: invalid value -1: must be in 1..100000")
        .contains("pods.shapes[0].memoryMiB: required");
  }

  @Test
  void repoRoot_fromHomeThenWorkingDirectoryThenCode(@TempDir Path dir) throws IOException {
    Path root = dir.resolve("repo");
    Files.createDirectories(root.resolve("config/scheduler"));
    Files.createDirectories(root.resolve("test-e2e/bin"));
    Files.writeString(root.resolve("config/scheduler/scheduler-config.yaml"), "");
    Files.writeString(root.resolve("test-e2e/bin/build-control-plane.sh"), "");
    Path deep = Files.createDirectories(root.resolve("a/b/c"));
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    assertThat(ClusterBenchCommand.repoRoot(root.toString(), elsewhere, null)).contains(root);
    assertThat(ClusterBenchCommand.repoRoot(elsewhere.toString(), root, null)).isEmpty();
    assertThat(ClusterBenchCommand.repoRoot(null, deep, null)).contains(root);
    assertThat(
            ClusterBenchCommand.repoRoot(null, elsewhere, root.resolve("cmd/cli/target/hami.jar")))
        .contains(root);
    assertThat(ClusterBenchCommand.repoRoot(null, elsewhere, null)).isEmpty();
  }

  @Test
  void report_markdownAndJsonCarryEveryFigure() {
    BenchReport.Phase ours =
        new BenchReport.Phase(
            "hami-scheduler",
            10,
            10,
            2.0,
            5.0,
            Stats.of(new double[] {4, 6}),
            Stats.of(new double[] {10, 20, 30}),
            Map.of(
                "create pods/binding",
                1.0,
                "patch pods",
                1.0,
                "patch nodes",
                1.0,
                "get nodes",
                1.0),
            3.0,
            3.0,
            1.5,
            Stats.of(new double[] {100, 200}),
            Map.of("attempts.scheduled", 10.0));
    BenchReport r =
        new BenchReport(
            "Basic",
            2,
            10,
            Map.of("cores", "2"),
            ours,
            null,
            null,
            new BenchReport.Baseline(
                "HAMi scheduler (extender)", false, "403 Forbidden | not available", null),
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(r.toMarkdown())
        .contains("| hami-scheduler | 10/10 | 5.0 | 4 / 6 / 6 | 20 / 30 | 3.00 (3.00) |")
        .contains(
            "create pods/binding 1.00<br>get nodes 1.00<br>patch nodes 1.00<br>patch pods 1.00")
        .contains("| 1.5 | 150 / 200 |")
        .contains("unavailable: 403 Forbidden \\| not available");
    assertThat(r.toJson()).contains("\"writesPerPod\" : 3.0").contains("\"available\" : false");
    assertThat(r.checks().ok()).isTrue();
  }

  /**
   * {@code hami} with only this subcommand; every exception is a usage error, as in HamiCommand.
   */
  static CommandLine hami() {
    CommandLine cl =
        new CommandLine(CommandSpec.create().name("hami")).addSubcommand(BenchCommand.class);
    cl.setExitCodeExceptionMapper(t -> 2);
    return cl;
  }
}
