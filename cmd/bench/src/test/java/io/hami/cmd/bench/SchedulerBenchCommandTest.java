package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class SchedulerBenchCommandTest {

  @Test
  void smallRun_bindsEveryPodAndEndsWithResultLine() {
    StringWriter out = new StringWriter();
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    int code =
        cl.execute(
            "bench",
            "scheduler",
            "--nodes",
            "20",
            "--gpus-per-node",
            "2",
            "--pods",
            "200",
            "--warmup-pods",
            "0");
    assertThat(code).isZero();
    String[] lines = out.toString().trim().split("\n");
    String last = lines[lines.length - 1];
    assertThat(last)
        .startsWith("RESULT {")
        .contains("\"bound\":200")
        .contains("\"unschedulable\":0");
    assertThat(out.toString()).contains("decision latency ms: p50=");
  }

  @ParameterizedTest
  @CsvSource({
    // workload, init pods, measured pods, expected bound (anti-affinity: one pod per node)
    "pod-anti-affinity, 10, 20, 20",
    "preferred-pod-affinity, 10, 20, 20",
    "topology-spreading, 10, 20, 20",
    "pvs, 10, 20, 20",
  })
  void schedulerPerfWorkloads_bindTheirMeasuredPods(
      String workload, int init, int measured, int bound) {
    StringWriter out = new StringWriter();
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    int code =
        cl.execute(
            "bench",
            "scheduler",
            "--workload",
            workload,
            "--nodes",
            "30",
            "--init-pods",
            String.valueOf(init),
            "--pods",
            String.valueOf(measured));
    assertThat(code).isZero();
    assertThat(out.toString())
        .contains("workload=" + workload + " init-pods=" + init)
        .contains("\"workload\":\"" + workload + "\"")
        .contains("\"bound\":" + bound + ",");
  }

  @Test
  void anUnknownWorkload_isRefusedNamingTheFlag() {
    StringWriter err = new StringWriter();
    CommandLine cl = hami();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("bench", "scheduler", "--workload", "affinity")).isEqualTo(2);
    assertThat(err.toString()).contains("--workload: invalid value \"affinity\"");
  }

  @Test
  void podsBeyondCapacity_areReportedUnschedulable() {
    StringWriter out = new StringWriter();
    CommandLine cl = hami();
    cl.setOut(new PrintWriter(out));
    // 2 nodes x 1 GPU x 10 slices = 20 vGPU slots.
    int code =
        cl.execute(
            "bench",
            "scheduler",
            "--nodes",
            "2",
            "--gpus-per-node",
            "1",
            "--pods",
            "25",
            "--warmup-pods",
            "0");
    assertThat(code).isZero();
    assertThat(out.toString()).contains("\"bound\":20").contains("\"unschedulable\":5");
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

  @ParameterizedTest
  @CsvSource({
    "'', 'builtin (no GPU plugins)'",
    "builtin, 'builtin (no GPU plugins)'",
    "gpu, 'gpu (config/scheduler/scheduler-config.yaml)'",
    "default, 'gpu (config/scheduler/scheduler-config.yaml)'",
    "my/profile.yaml, my/profile.yaml",
  })
  void profileFlag_namesWhatRuns(String flag, String named) {
    assertThat(SchedulerBenchCommand.profileName(flag.isEmpty() ? null : Path.of(flag)))
        .isEqualTo(named);
  }
}
