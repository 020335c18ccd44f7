package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    assertThat(r[2])
        .contains(
            "--baseline: invalid value \"hami\": must be one of non-gpu, kube-scheduler,"
                + " ceiling, none (comma-separated)");
  }

  @Test
  void baselines_defaultByWorkload_andKubeSchedulerNeedsItsBinary(@TempDir Path dir)
      throws IOException {
    assertThat(ClusterBenchCommand.baselines(null, false, null))
        .isEqualTo(new ClusterBench.Baselines(true, true, null));
    assertThat(ClusterBenchCommand.baselines("none", true, null))
        .isEqualTo(new ClusterBench.Baselines(false, false, null));
    assertThatThrownBy(() -> ClusterBenchCommand.baselines(null, true, null))
        .hasMessageContaining(
            "no kube-scheduler binary: pass --kube-scheduler PATH or set KUBE_SCHEDULER");
    assertThatThrownBy(() -> ClusterBenchCommand.baselines(null, true, " "))
        .hasMessageContaining("no kube-scheduler binary");
    assertThatThrownBy(
            () -> ClusterBenchCommand.baselines(null, true, dir.resolve("missing").toString()))
        .hasMessage(
            "--kube-scheduler: invalid value \""
                + dir.resolve("missing")
                + "\": not an executable file");
    Path bin = Files.writeString(dir.resolve("kube-scheduler"), "#!/bin/sh\n");
    assertThat(bin.toFile().setExecutable(true)).isTrue();
    assertThat(ClusterBenchCommand.baselines(null, true, bin.toString()))
        .isEqualTo(new ClusterBench.Baselines(false, false, bin.toAbsolutePath()));
    assertThatThrownBy(() -> ClusterBenchCommand.baselines("ceiling", true, bin.toString()))
        .hasMessageContaining("pods.template workloads compare with kube-scheduler");
    assertThatThrownBy(() -> ClusterBenchCommand.baselines("non-gpu", true, bin.toString()))
        .hasMessageContaining("the pods of a pods.template workload carry no GPUs");
  }

  @Test
  void baselines_gpuWorkload_allFourPhasesByDefaultWhenKubeSchedulerIsThere(@TempDir Path dir)
      throws IOException {
    Path bin = Files.writeString(dir.resolve("kube-scheduler"), "#!/bin/sh\n");
    assertThat(bin.toFile().setExecutable(true)).isTrue();
    ClusterBench.Baselines all = ClusterBenchCommand.baselines(null, false, bin.toString());
    assertThat(all).isEqualTo(new ClusterBench.Baselines(true, true, bin.toAbsolutePath()));
    assertThat(all.describe())
        .isEqualTo("non-gpu, kube-scheduler " + bin.toAbsolutePath() + ", ceiling");
    assertThat(ClusterBenchCommand.baselines(null, false, " "))
        .isEqualTo(new ClusterBench.Baselines(true, true, null));
    assertThat(ClusterBenchCommand.baselines("kube-scheduler", false, bin.toString()))
        .isEqualTo(new ClusterBench.Baselines(false, false, bin.toAbsolutePath()));
    assertThat(ClusterBenchCommand.baselines("non-gpu", false, null).describe())
        .isEqualTo("non-gpu");
    assertThat(ClusterBenchCommand.baselines("none", false, bin.toString()).describe())
        .isEqualTo("none");
    // Asked for by name, a missing binary is an error, not a silently smaller report.
    assertThatThrownBy(() -> ClusterBenchCommand.baselines("non-gpu,kube-scheduler", false, null))
        .hasMessageStartingWith(
            "--baseline kube-scheduler: no kube-scheduler binary: pass --kube-scheduler PATH or"
                + " set KUBE_SCHEDULER");
    // A variable that names no binary is an error too, not a skipped baseline.
    assertThatThrownBy(
            () -> ClusterBenchCommand.baselines(null, false, dir.resolve("gone").toString()))
        .hasMessageContaining("not an executable file");
  }

  @Test
  void initPodsWithoutTemplate_isAConfigError(@TempDir Path dir) throws IOException {
    Path w = dir.resolve("w.yaml");
    Files.writeString(
        w, "name: X\nnodes: {count: 1}\npods: {count: 1, shapes: [{memoryMiB: 1}]}\n");
    String[] r = run("bench", "cluster", "--workload", w.toString(), "--init-pods", "3");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--init-pods: invalid value 3: only with a pods.template workload");
  }

  @Test
  void kubeSchedulerFirstWithoutTemplate_isAConfigError(@TempDir Path dir) throws IOException {
    Path w = dir.resolve("w.yaml");
    Files.writeString(
        w, "name: X\nnodes: {count: 1}\npods: {count: 1, shapes: [{memoryMiB: 1}]}\n");
    String[] r = run("bench", "cluster", "--workload", w.toString(), "--kube-scheduler-first");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .contains("--kube-scheduler-first: only with a pods.template workload, and X has none");
  }

  @Test
  void kubeSchedulerFirstWithoutKubeScheduler_isAConfigError() {
    Path w =
        Path.of("")
            .toAbsolutePath()
            .getParent()
            .getParent()
            .resolve("config/bench/topology-spreading.yaml");
    String[] r =
        run(
            "bench",
            "cluster",
            "--workload",
            w.toString(),
            "--baseline",
            "none",
            "--kube-scheduler-first");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--kube-scheduler-first: no kube-scheduler to run");
  }

  @Test
  void backlogWithChurn_isAConfigError() {
    Path w =
        Path.of("")
            .toAbsolutePath()
            .getParent()
            .getParent()
            .resolve("config/bench/mixed-churn.yaml");
    String[] r = run("bench", "cluster", "--workload", w.toString(), "--backlog");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2])
        .contains(
            "--backlog: workload MixedChurn has churn, which needs pods arriving while the"
                + " scheduler runs; run it without --backlog");
  }

  @Test
  void backlog_latencyCountsFromTheRelease_forPodsCreatedBeforeIt() {
    // Created at 1 s, released at 3 s, bound at 3.5 s: 500 ms of the scheduler's.
    assertThat(BindTracker.latencyMs(1_000_000_000L, 3_500_000_000L, 3_000_000_000L))
        .isEqualTo(500.0);
    // Created after the release (or never held): from its create.
    assertThat(BindTracker.latencyMs(4_000_000_000L, 4_200_000_000L, 3_000_000_000L))
        .isEqualTo(200.0);
    assertThat(BindTracker.latencyMs(1_000_000_000L, 1_300_000_000L, Long.MIN_VALUE))
        .isEqualTo(300.0);
  }

  @Test
  void signal_pausesAndResumesAProcess_andNamesAFailure() throws Exception {
    Process p = new ProcessBuilder("sleep", "30").start();
    try {
      ScrapedProcess.signal(p.pid(), "STOP");
      assertThat(processState(p.pid(), "T")).isEqualTo("T");
      ScrapedProcess.signal(p.pid(), "CONT");
      assertThat(processState(p.pid(), "S", "R")).isIn("S", "R");
    } finally {
      p.destroyForcibly().waitFor();
    }
    assertThatThrownBy(() -> ScrapedProcess.signal(p.pid(), "CONT"))
        .hasMessageContaining("kill -CONT " + p.pid() + " exited");
  }

  /**
   * The state letter of {@code /proc/<pid>/stat} (T: stopped) once it is one of {@code want}, or as
   * last read after a second: a signal is delivered a moment after kill(1) returns.
   */
  private static String processState(long pid, String... want) throws Exception {
    String state = "";
    for (int i = 0; i < 100; i++) {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (List.of(want).contains(state)) {
        return state;
      }
      Thread.sleep(10);
    }
    return state;
  }

  @Test
  void scaledTemplateBeyondCapacity_isAConfigError() {
    Path w =
        Path.of("")
            .toAbsolutePath()
            .getParent()
            .getParent()
            .resolve("config/bench/pod-anti-affinity.yaml");
    String[] r =
        run("bench", "cluster", "--workload", w.toString(), "--nodes", "200", "--pods", "500");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("init and measured pods (600) exceed the node count 200");
  }

  @Test
  void kubeSchedulerConfiguration_leaderElectionOff_clientLimitsOfOurs() {
    String c =
        KubeSchedulerProcess.configuration(
            Path.of("/k/kubeconfig"), new Workload.SchedulerFlags(5000, 10_000, 1024, 16));
    assertThat(c)
        .contains("kind: KubeSchedulerConfiguration")
        .contains("kubeconfig: \"/k/kubeconfig\"")
        .contains("qps: 5000.0")
        .contains("burst: 10000")
        .contains("leaderElect: false")
        .contains("- schedulerName: default-scheduler");
  }

  @Test
  void kubeRequests_byMethod_withEventsSplitOutFromTheApiServer() {
    PromText before =
        PromText.parse("rest_client_requests_total{code=\"201\",host=\"h\",method=\"POST\"} 10\n");
    PromText after =
        PromText.parse(
            "rest_client_requests_total{code=\"201\",host=\"h\",method=\"POST\"} 30\n"
                + "rest_client_requests_total{code=\"200\",host=\"h\",method=\"GET\"} 4\n");
    Map<String, Double> requests = PhaseFigures.kubeRequestDelta(before, after);
    assertThat(requests).containsOnly(Map.entry("create *", 20.0), Map.entry("get *", 4.0));
    PhaseFigures.splitEvents(
        requests,
        PromText.parse(
            "apiserver_request_total{verb=\"POST\",resource=\"events\",code=\"201\"} 5\n"),
        PromText.parse(
            "apiserver_request_total{verb=\"POST\",resource=\"events\",code=\"201\"} 15\n"
                + "apiserver_request_total{verb=\"POST\",resource=\"pods\",code=\"201\"} 99\n"));
    assertThat(requests)
        .containsOnly(
            Map.entry("create *", 10.0), Map.entry("create events", 10.0), Map.entry("get *", 4.0));
  }

  @Test
  void badQps_isAConfigError() {
    String[] r = run("bench", "cluster", "--workload", "x.yaml", "--qps", "0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--qps: invalid value 0.0: must be in 0.1..100000");
  }

  @Test
  void badLockMode_isAConfigError() {
    String[] r = run("bench", "cluster", "--workload", "x.yaml", "--lock-mode", "off");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--lock-mode: invalid value 'off': must be node or scheduler");
  }

  @Test
  void badPrimaryScore_isAConfigError() {
    for (String bad : List.of("", "nodelock,", "nodelock,nodelock", "node lock")) {
      String[] r = run("bench", "cluster", "--workload", "x.yaml", "--primary-score", bad);
      assertThat(r[0]).as(bad).isEqualTo("2");
      assertThat(r[2])
          .as(bad)
          .contains(
              "--primary-score: invalid value '"
                  + bad
                  + "': must be distinct plugin names separated by commas");
    }
  }

  @Test
  void badMaxBusyNodes_isAConfigError() {
    String[] r = run("bench", "cluster", "--workload", "x.yaml", "--max-busy-nodes", "-1");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("--max-busy-nodes: invalid value -1: must be in 0..100000");
  }

  @Test
  void shippedConfig_changesOnlyTheSettingsAsked(@TempDir Path work) throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent().getParent();
    Path shippedFile = root.resolve("config/scheduler/scheduler-config.yaml");
    String shipped = Files.readString(shippedFile);
    assertThat(SchedulerProcess.shippedConfig(root, SchedulerProcess.Settings.SHIPPED, work))
        .isEqualTo(shippedFile);

    String yaml =
        Files.readString(
            SchedulerProcess.shippedConfig(
                root, new SchedulerProcess.Settings("scheduler", null, null), work));
    assertThat(yaml).contains("          mode: scheduler\n").doesNotContain("mode: node");
    assertThat(yaml.replace("mode: scheduler", "mode: node")).isEqualTo(shipped);

    yaml =
        Files.readString(
            SchedulerProcess.shippedConfig(
                root,
                new SchedulerProcess.Settings("node", List.of("nodelock", "vgpu"), 16),
                work));
    assertThat(yaml)
        .contains("    primaryScore: [nodelock, vgpu]\n")
        .contains("          mode: node\n          maxBusyNodes: 16\n")
        .doesNotContain("primaryScore: vgpu");
    assertThat(
            yaml.replace("primaryScore: [nodelock, vgpu]", "primaryScore: vgpu")
                .replace("          maxBusyNodes: 16\n", ""))
        .isEqualTo(shipped);
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
            Map.of("attempts.scheduled", 10.0),
            180.0);
    BenchReport r =
        new BenchReport(
            "Basic",
            2,
            10,
            Map.of("cores", "2"),
            ours,
            null,
            null,
            null,
            null,
            null,
            null,
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(r.toMarkdown())
        .contains("| hami-scheduler | 10/10 | 5.0 | 4 / 6 / 6 | 20 / 30 | 3.00 (3.00) |")
        .contains(
            "create pods/binding 1.00<br>get nodes 1.00<br>patch nodes 1.00<br>patch pods 1.00")
        .contains("| heap MiB avg / max | created/s |")
        .contains("| 1.5 | 150 / 200 | 180 |")
        .doesNotContain("HAMi scheduler");
    assertThat(r.toJson())
        .contains("\"writesPerPod\" : 3.0", "\"createdPerSecond\" : 180.0")
        .doesNotContain("\"hami\"");
    assertThat(r.checks().ok()).isTrue();
  }

  @Test
  void report_withKubeScheduler_printsItsRowAndTheRatio() {
    BenchReport.Phase ours = phase("hami-scheduler", 40.0);
    BenchReport.Phase kube = phase("kube-scheduler", 50.0);
    BenchReport r =
        BenchReport.of(
            workload("PodAntiAffinity", 20, 10),
            Map.of(),
            new BenchReport.Phases(ours, null, kube, null),
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(r.toMarkdown())
        .contains("| binder | bound | pods/s (avg) | ÷ kube-scheduler | pods/s per-second")
        .contains("| hami-scheduler | 10/10 | 40.0 | 0.80 | 4 / 6 / 6 |")
        .contains("| kube-scheduler | 10/10 | 50.0 | 1.00 | 4 / 6 / 6 |")
        .contains("ours / kube-scheduler (avg pods/s): **0.80**")
        .contains("kube-scheduler internals: attempts.scheduled=10.000")
        .doesNotContain("without GPUs");
    assertThat(r.toJson()).contains("\"kubeSchedulerRatio\" : 0.8");
    assertThat(r.nonGpuRatio()).isNull();
    assertThat(r.ceilingRatio()).isNull();
  }

  @Test
  void report_gpuWorkload_fourRowsInRunOrder_eachAgainstKubeScheduler_andTheRatios() {
    BenchReport r =
        BenchReport.of(
            workload("Basic", 100, 10),
            Map.of(),
            new BenchReport.Phases(
                phase("hami-scheduler", 30.0),
                phase(NonGpuRun.OURS, 45.0),
                phase(NonGpuRun.KUBE, 50.0),
                phase("API ceiling", 60.0)),
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(r.kubeSchedulerRatio()).isEqualTo(0.6);
    assertThat(r.nonGpuRatio()).isEqualTo(0.9);
    assertThat(r.ceilingRatio()).isEqualTo(0.5);
    String md = r.toMarkdown();
    assertThat(md)
        .contains("| binder | bound | pods/s (avg) | ÷ kube-scheduler, no GPUs | pods/s per-second")
        .contains("|---|---|---|---|---|---|---|---|---|---|\n")
        .contains("| hami-scheduler | 10/10 | 30.0 | 0.60 |")
        .contains("| hami-scheduler, no GPUs | 10/10 | 45.0 | 0.90 |")
        .contains("| kube-scheduler, no GPUs | 10/10 | 50.0 | 1.00 |")
        .contains("| API ceiling | 10/10 | 60.0 | 1.20 |")
        .contains("GPU path / kube-scheduler without GPUs (avg pods/s): **0.60**")
        .contains("ours / kube-scheduler, both without GPUs (avg pods/s): **0.90**")
        .contains("ours / ceiling (avg pods/s): **0.50**")
        .contains("Scheduler internals: attempts.scheduled=10.000")
        .contains("hami-scheduler, no GPUs internals: attempts.scheduled=10.000")
        .doesNotContain("ours / kube-scheduler (avg pods/s)");
    assertThat(md.indexOf("| hami-scheduler |"))
        .isLessThan(md.indexOf("| hami-scheduler, no GPUs |"));
    assertThat(md.indexOf("| hami-scheduler, no GPUs |"))
        .isLessThan(md.indexOf("| kube-scheduler, no GPUs |"));
    assertThat(md.indexOf("| kube-scheduler, no GPUs |")).isLessThan(md.indexOf("| API ceiling |"));
    assertThat(r.toJson())
        .contains("\"nonGpu\" : {")
        .contains("\"name\" : \"kube-scheduler, no GPUs\"")
        .contains("\"kubeSchedulerRatio\" : 0.6")
        .contains("\"nonGpuRatio\" : 0.9")
        .contains("\"ceilingRatio\" : 0.5");
  }

  @Test
  void report_withoutKubeScheduler_rowsAgainstTheCeiling_andNoRatioToAPhaseThatBoundNothing() {
    BenchReport r =
        BenchReport.of(
            workload("Basic", 100, 10),
            Map.of(),
            new BenchReport.Phases(
                phase("hami-scheduler", 30.0),
                phase(NonGpuRun.OURS, 45.0),
                null,
                phase("API ceiling", 60.0)),
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(r.toMarkdown())
        .contains("| pods/s (avg) | ÷ API ceiling |")
        .contains("| hami-scheduler | 10/10 | 30.0 | 0.50 |")
        .contains("| hami-scheduler, no GPUs | 10/10 | 45.0 | 0.75 |")
        .doesNotContain("GPU path /");
    assertThat(r.kubeSchedulerRatio()).isNull();
    assertThat(r.nonGpuRatio()).isNull();
    assertThat(BenchReport.ratio(phase("a", 10.0), phase("b", 0.0))).isNull();
    BenchReport alone =
        BenchReport.of(
            workload("Basic", 100, 10),
            Map.of(),
            new BenchReport.Phases(phase("hami-scheduler", 30.0), null, null, null),
            new BenchReport.Checks(List.of(), 0, 0, 0, List.of()));
    assertThat(alone.toMarkdown())
        .contains("| binder | bound | pods/s (avg) | pods/s per-second")
        .contains("|---|---|---|---|---|---|---|---|---|\n")
        .contains("| hami-scheduler | 10/10 | 30.0 | 4 / 6 / 6 |");
  }

  @Test
  void withoutGpus_sameContainersAndLabels_noResources() {
    Workload.Shape shape = new Workload.Shape("multi-container", 25, 2, 1, 2048, 10);
    var pod = BenchPods.withoutGpus("ns", "non-gpu-3", "non-gpu", shape, "default-scheduler");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry(BenchPods.GROUP_LABEL, "non-gpu")
        .containsEntry("bench.hami.io/shape", "multi-container");
    assertThat(pod.getSpec().getSchedulerName()).isEqualTo("default-scheduler");
    assertThat(pod.getSpec().getContainers()).hasSize(2);
    assertThat(pod.getSpec().getContainers())
        .allSatisfy(c -> assertThat(c.getResources()).isNull());
    assertThat(
            BenchPods.pod("ns", "p", "g", shape)
                .getSpec()
                .getContainers()
                .get(0)
                .getResources()
                .getLimits())
        .containsKey("nvidia.com/gpumem");
  }

  private static Workload workload(String name, int nodes, int pods) {
    return new Workload(
        name,
        new Workload.Nodes(nodes, 8, 16384, 10, Workload.NodeKind.LIGHT, Duration.ofSeconds(30)),
        new Workload.Pods(pods, 100, 4, List.of(new Workload.Shape("s", 1, 1, 1, 1024, 10)), 0),
        null,
        null,
        new Workload.SchedulerFlags(5000, 10_000, 1024, 16),
        Duration.ofHours(1));
  }

  private static BenchReport.Phase phase(String name, double podsPerSecond) {
    return new BenchReport.Phase(
        name,
        10,
        10,
        10 / podsPerSecond,
        podsPerSecond,
        Stats.of(new double[] {4, 6}),
        Stats.of(new double[] {10, 20, 30}),
        Map.of("create *", 1.0, "create events", 1.0),
        2.0,
        1.0,
        1.5,
        Stats.of(new double[] {100, 200}),
        Map.of("attempts.scheduled", 10.0),
        200.0);
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
