package io.hami.cmd.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

final class SimulateCommandTest {

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = hami();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void comparesPoliciesAndWritesJsonAndHtml(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("r.json");
    Path html = dir.resolve("r.html");
    Run r =
        run(
            "simulate",
            "--policy",
            "bestfit,fgd,hami-binpack",
            "--seeds",
            "42",
            "--threads",
            "2",
            "--json",
            json.toString(),
            "--html",
            html.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("Trace default: 1213 nodes, 6212 GPUs, 8152 pods")
        .contains("Empty-cluster fragmentation rate 13.94%")
        .contains("BestFit")
        .contains("FGD *")
        .contains("4.84 ±0.00")
        .contains("4.77 (+0.07 ok")
        .contains("HAMi binpack")
        .contains("Ran 3 replays");
    assertThat(r.err()).doesNotContain("replays,"); // no progress bar off a terminal
    String j = Files.readString(json);
    assertThat(j)
        .contains("\"trace\": \"default\"")
        .contains("\"policy\": \"fgd\"")
        .contains("\"policy\": \"hami-binpack\"")
        .contains("\"unallocatedAt100PerSeed\": [4.84]")
        .contains("\"withinTolerance\": true");
    String h = Files.readString(html);
    assertThat(h)
        .startsWith("<!DOCTYPE html>")
        .contains("<svg")
        .contains("<polyline")
        .contains("unallocated GPU % vs arrived workload")
        .contains("fragmentation rate vs arrived workload")
        .contains("unallocated GPU % near and past full (85–130% arrived)")
        .contains("<polygon") // mean ± SD bands
        .contains("stroke-dasharray=\"6 3\"") // the second policy's dashes
        .contains("Recommendation for this trace:</b> FGD")
        .contains("the next best, BestFit")
        .contains("<dt>Fragmentation rate %</dt>")
        .contains("<dt>FGD</dt><dd>Fragmentation gradient descent")
        .contains("<dt>HAMi binpack</dt><dd>HAMi's binpack")
        .doesNotContain("--engine framework")
        .doesNotContain("<script")
        .doesNotContain("<link")
        .doesNotContain("href")
        .doesNotContain("src=");
  }

  @Test
  void progressBarWhenAsked() {
    Run r = run("simulate", "--policy", "packing", "--seeds", "1", "--progress");
    assertThat(r.code()).isZero();
    assertThat(r.err()).contains("1/1 replays");
  }

  @Test
  void readsCsvFiles(@TempDir Path dir) throws Exception {
    Path nodes = dir.resolve("nodes.csv");
    Path pods = dir.resolve("openb_pod_list_tiny.csv");
    Files.writeString(
        nodes, "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8192,2,T4\nn1,8000,8192,1,P100\n");
    Files.writeString(
        pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
            + "p0,1000,100,1,500,\np1,1000,100,1,1000,P100\np2,2000,100,0,0,\n");
    Run r =
        run("simulate", "--nodes", nodes.toString(), "--pods", pods.toString(), "--seeds", "1..3");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Trace tiny: 2 nodes, 3 GPUs, 3 pods").contains("3 seeds (1..3)");
  }

  @Test
  void checkEnginesReplaysBothEnginesAndFindsThemEqual(@TempDir Path dir) throws Exception {
    Path nodes = dir.resolve("nodes.csv");
    Path pods = dir.resolve("openb_pod_list_small.csv");
    StringBuilder n = new StringBuilder("sn,cpu_milli,memory_mib,gpu,model\n");
    for (int i = 0; i < 12; i++) {
      n.append("n")
          .append(i)
          .append(",16000,65536,")
          .append(i % 3 == 0 ? 8 : 2)
          .append(i % 2 == 0 ? ",T4\n" : ",P100\n");
    }
    StringBuilder p = new StringBuilder("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
    for (int i = 0; i < 60; i++) {
      int kind = i % 5;
      p.append("p")
          .append(i)
          .append(',')
          .append(1000 + 500 * (i % 4))
          .append(",1024,")
          .append(
              switch (kind) {
                case 0 -> "0,0,";
                case 1 -> "1,250,";
                case 2 -> "1,1000,T4";
                case 3 -> "2,1000,";
                default -> "1,500,P100";
              })
          .append('\n');
    }
    Files.writeString(nodes, n.toString());
    Files.writeString(pods, p.toString());
    Run r =
        run(
            "simulate",
            "--nodes",
            nodes.toString(),
            "--pods",
            pods.toString(),
            "--seeds",
            "1,2",
            "--check-engines",
            "--threads",
            "2");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .contains("small        random       seed 1: identical")
        .contains("small        fgd          seed 2: identical")
        .contains("small        hami-binpack seed 1: identical")
        .contains("small        hami-spread  seed 2: identical")
        .contains("16 of 16 replays placed identically by both engines.");
    Run unknown = run("simulate", "--policy", "nope", "--check-engines");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("unknown policy 'nope'");
  }

  @Test
  void longPolicyNamesKeepTheColumnsAligned(@TempDir Path dir) throws Exception {
    Path nodes = dir.resolve("nodes.csv");
    Path pods = dir.resolve("openb_pod_list_tiny.csv");
    Files.writeString(
        nodes, "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8192,2,T4\nn1,8000,8192,1,P100\n");
    Files.writeString(
        pods,
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
            + "p0,1000,100,1,500,\np1,1000,100,1,1000,P100\np2,2000,100,0,0,\n");
    Run r =
        run(
            "simulate",
            "--engine",
            "framework",
            "--policy",
            "hami-binpack,fgd,hami-spread",
            "--nodes",
            nodes.toString(),
            "--pods",
            pods.toString(),
            "--seeds",
            "1");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> rows =
        r.out()
            .lines()
            .filter(l -> l.startsWith("HAMi") || l.startsWith("FGD") || l.startsWith("policy"))
            .toList();
    assertThat(rows).hasSize(4);
    int column = rows.get(0).indexOf("90%");
    for (String row : rows.subList(1, rows.size())) {
      // The name (and best mark) fits before the first value column.
      assertThat(row.substring(0, column).strip())
          .as(row)
          .matches("(HAMi binpack|HAMi spread|FGD)( \\*)?");
    }
  }

  @Test
  void badInputsAreReportedWithExitCode2(@TempDir Path dir) throws Exception {
    Run policy = run("simulate", "--policy", "fgd,firstfit");
    assertThat(policy.code()).isEqualTo(2);
    assertThat(policy.err()).contains("--policy: unknown policy 'firstfit'");
    Run seeds = run("simulate", "--seeds", "9..1");
    assertThat(seeds.code()).isEqualTo(2);
    assertThat(seeds.err()).contains("--seeds");
    Run trace = run("simulate", "--trace", "nope");
    assertThat(trace.code()).isEqualTo(2);
    assertThat(trace.err()).contains("--trace: no bundled trace 'nope'");
    Path bad = dir.resolve("pods.csv");
    Files.writeString(bad, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,x,1,0,0\n");
    Run file = run("simulate", "--pods", bad.toString());
    assertThat(file.code()).isEqualTo(2);
    assertThat(file.err()).contains("pods.csv line 2: column cpu_milli = 'x'");
    Run missing = run("simulate", "--pods", dir.resolve("none.csv").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("none.csv");

    Path binary = dir.resolve("binary.csv");
    Files.write(binary, new byte[] {'n', 'a', 'm', 'e', '\n', 'x', (byte) 0xff, 0});
    Run notText = run("simulate", "--pods", binary.toString());
    assertThat(notText.code()).isEqualTo(2);
    assertThat(notText.err()).contains("binary.csv:2: not UTF-8 text (byte 0xff at offset 6)");

    // Refused before the run, not after it.
    Path nowhere = dir.resolve("no-such-dir").resolve("report.html");
    Run html = run("simulate", "--html", nowhere.toString(), "--seeds", "42", "--policy", "fgd");
    assertThat(html.code()).isEqualTo(2);
    assertThat(html.err()).contains("--html", "does not exist");
    assertThat(html.out()).doesNotContain("Ran ");

    Path pod = dir.resolve("pod.yaml");
    Files.writeString(
        pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            + "    resources:\n      limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 1000}\n");
    Run noNodes = run("simulate", "--pods", pod.toString());
    assertThat(noNodes.code()).isEqualTo(2);
    assertThat(noNodes.err()).contains("pass --nodes");
  }

  @Test
  void parsesSeedsAndPolicies() {
    assertThat(SimulateCommand.parseSeeds("42..45")).containsExactly(42L, 43L, 44L, 45L);
    assertThat(SimulateCommand.parseSeeds("7, 3,7")).containsExactly(7L, 3L);
    assertThatThrownBy(() -> SimulateCommand.parseSeeds("a..b")).hasMessageContaining("--seeds");
    assertThat(SimulateCommand.parsePolicies(List.of(), SimulateCommand.Engine.fast))
        .extracting(p -> p.policyName())
        .containsExactly(
            "random",
            "dotprod",
            "clustering",
            "packing",
            "bestfit",
            "fgd",
            "hami-binpack",
            "hami-spread");
    assertThat(
            SimulateCommand.parsePolicies(
                List.of("hami-spread", "fgd"), SimulateCommand.Engine.framework))
        .extracting(p -> p.policyName())
        .containsExactly("hami-spread", "fgd");
    assertThat(SimulateCommand.parsePolicies(List.of("hami-spread"), SimulateCommand.Engine.fast))
        .extracting(p -> p.displayName())
        .containsExactly("HAMi spread");
    assertThatThrownBy(
            () -> SimulateCommand.parsePolicies(List.of("binpack"), SimulateCommand.Engine.fast))
        .hasMessageContaining("unknown policy 'binpack'")
        .hasMessageContaining("hami-binpack, hami-spread");
    assertThat(SimulateCommand.traceNames(List.of("all"))).hasSize(5);
  }

  /**
   * {@code hami} with only this subcommand; every exception is a usage error, as in HamiCommand.
   */
  static CommandLine hami() {
    CommandLine cl =
        new CommandLine(CommandSpec.create().name("hami")).addSubcommand(SimulateCommand.class);
    cl.setExitCodeExceptionMapper(t -> 2);
    return cl;
  }
}
