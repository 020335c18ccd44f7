package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hami.cmd.HamiCommand;
import io.hami.cmd.cluster.ControlPlane;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code hami bench cluster} against the real control plane, scaled down: the measurements must be
 * sane (every pod bound, the scheduler's writes per pod counted, no device over-committed), not
 * fast. Timings are printed, never asserted.
 */
@ExtendWith(ControlPlaneExtension.class)
class BenchClusterE2E {
  @TempDir static Path dir;

  private static JsonNode run(ControlPlane cp, String workload, String... extra) throws Exception {
    return run(cp, workload, new StringWriter(), extra);
  }

  private static JsonNode run(ControlPlane cp, String workload, StringWriter out, String... extra)
      throws Exception {
    Path root = ControlPlaneExtension.moduleDir().toAbsolutePath().getParent();
    Path json = dir.resolve(workload.replace('/', '_') + ".json");
    CommandLine cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(out));
    String[] args =
        new String[] {
          "bench",
          "cluster",
          "--workload",
          root.resolve(workload).toString(),
          "--kubeconfig",
          cp.kubeconfig().toString(),
          "--json",
          json.toString()
        };
    String[] all = new String[args.length + extra.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    int code = cl.execute(all);
    System.out.println(out);
    assertThat(code).as("exit code; output:%n%s", out).isZero();
    return JsonMapper.builder().build().readTree(Files.readString(json));
  }

  /**
   * Basic, scaled down, in its four phases: ours on the GPU pods, ours and kube-scheduler on the
   * same pods without GPU requests, and the API ceiling. kube-scheduler comes from {@code
   * KUBE_SCHEDULER} (test-e2e/bin/build-control-plane.sh prints it); without it the other three
   * phases run.
   */
  @Test
  void basic_scaledDown_bindsEveryPodWithTheHappyPathWrites_inEveryPhase(ControlPlane cp)
      throws Exception {
    String kubeScheduler = System.getenv("KUBE_SCHEDULER");
    boolean kube = kubeScheduler != null && Files.isExecutable(Path.of(kubeScheduler));
    StringWriter out = new StringWriter();
    JsonNode r =
        kube
            ? run(
                cp,
                "config/bench/basic.yaml",
                out,
                "--nodes",
                "50",
                "--pods",
                "300",
                "--kube-scheduler",
                kubeScheduler)
            : run(cp, "config/bench/basic.yaml", out, "--nodes", "50", "--pods", "300");
    JsonNode ours = r.path("ours");
    assertThat(ours.path("created").asInt()).isEqualTo(300);
    assertThat(ours.path("bound").asInt()).isEqualTo(300);
    JsonNode perPod = ours.path("requestsPerPod");
    // One binding per pod, carrying the device annotations and label, and the lock patch.
    assertThat(perPod.path("create bindings").asDouble()).isBetween(0.99, 1.01);
    // The scheduler's metrics are scraped once the last pod shows bound, which can be before its
    // client has counted the last write: allow one uncounted write in 300 pods.
    assertThat(perPod.path("patch nodes").asDouble()).isGreaterThanOrEqualTo(0.99);
    assertThat(ours.path("writesPerPod").asDouble()).isGreaterThanOrEqualTo(1.99);
    // Lock patch and binding; a lock patch that meets a conflict is retried.
    assertThat(ours.path("bindingWritesPerPod").asDouble()).isBetween(1.99, 2.5);
    assertThat(ours.path("cpuSeconds").asDouble()).isPositive();
    assertThat(ours.path("heapMiB").path("max").asDouble()).isPositive();
    assertThat(ours.path("createToBindMs").path("count").asInt()).isEqualTo(300);
    assertThat(ours.path("perSecond").path("count").asInt()).isPositive();

    JsonNode ceiling = r.path("ceiling");
    assertThat(ceiling.path("bound").asInt()).isEqualTo(300);
    // The same two writes; a lock patch that loses a race to another worker is retried.
    assertThat(ceiling.path("writesPerPod").asDouble()).isBetween(2.0, 2.5);
    assertThat(r.path("ceilingRatio").asDouble()).isPositive();

    // The same pods without GPU requests: one binding each, no node lock.
    JsonNode nonGpu = r.path("nonGpu");
    assertThat(nonGpu.path("name").asString()).isEqualTo("hami-scheduler, no GPUs");
    assertThat(nonGpu.path("created").asInt()).isEqualTo(300);
    assertThat(nonGpu.path("bound").asInt()).isEqualTo(300);
    assertThat(nonGpu.path("requestsPerPod").path("create bindings").asDouble())
        .isBetween(0.99, 1.01);
    assertThat(nonGpu.path("bindingWritesPerPod").asDouble()).isBetween(0.99, 1.05);
    for (String phase : new String[] {"ours", "nonGpu", "ceiling"}) {
      assertThat(r.path(phase).path("podsPerSecond").asDouble()).as(phase).isPositive();
    }
    String md = out.toString();
    if (kube) {
      JsonNode k = r.path("kubeScheduler");
      assertThat(k.path("name").asString()).isEqualTo("kube-scheduler, no GPUs");
      assertThat(k.path("created").asInt()).isEqualTo(300);
      assertThat(k.path("bound").asInt()).isEqualTo(300);
      assertThat(k.path("podsPerSecond").asDouble()).isPositive();
      assertThat(k.path("requestsPerPod").path("create *").asDouble()).isGreaterThanOrEqualTo(0.9);
      assertThat(r.path("kubeSchedulerRatio").asDouble()).isPositive();
      assertThat(r.path("nonGpuRatio").asDouble()).isPositive();
      // Four rows, each with its ratio to kube-scheduler, and the headline under the table.
      assertThat(md)
          .contains("| pods/s (avg) | ÷ kube-scheduler, no GPUs |")
          .containsPattern("\\| hami-scheduler \\| 300/300 \\| [0-9.]+ \\| [0-9.]+ \\|")
          .containsPattern("\\| hami-scheduler, no GPUs \\| 300/300 \\| [0-9.]+ \\| [0-9.]+ \\|")
          .contains("| kube-scheduler, no GPUs | 300/300 |")
          .containsPattern("\\| kube-scheduler, no GPUs \\| 300/300 \\| [0-9.]+ \\| 1\\.00 \\|")
          .containsPattern("\\| API ceiling \\| 300/300 \\| [0-9.]+ \\| [0-9.]+ \\|")
          .contains("GPU path / kube-scheduler without GPUs (avg pods/s): **")
          .contains("ours / kube-scheduler, both without GPUs (avg pods/s): **");
    } else {
      assertThat(r.path("kubeScheduler").isNull() || r.path("kubeScheduler").isMissingNode())
          .isTrue();
      assertThat(md).contains("| pods/s (avg) | ÷ API ceiling |");
    }

    assertThat(r.has("hami")).as("no column for a scheduler the harness cannot run").isFalse();
    assertThat(r.path("checks").path("violations")).isEmpty();
    assertThat(r.path("checks").path("unbound").asInt()).isZero();
  }

  /**
   * Basic from a backlog in lock mode {@code scheduler}, scaled down: the GPU phase is warmed up in
   * rounds until steady, and both the scheduler and the API ceiling bind with the binding alone.
   */
  @Test
  void basic_backlogInLockModeScheduler_bindsWithTheBindingAlone(ControlPlane cp) throws Exception {
    JsonNode r =
        run(
            cp,
            "config/bench/basic.yaml",
            "--nodes",
            "20",
            "--pods",
            "100",
            "--backlog",
            "--lock-mode",
            "scheduler",
            "--baseline",
            "ceiling");
    JsonNode ours = r.path("ours");
    assertThat(ours.path("bound").asInt()).isEqualTo(100);
    assertThat(ours.path("requestsPerPod").path("create bindings").asDouble())
        .isBetween(0.99, 1.01);
    assertThat(ours.path("bindingWritesPerPod").asDouble()).isBetween(0.99, 1.01);
    // At least two rounds of 100 warm-up pods, however quickly the compiler settles.
    assertThat(Integer.parseInt(r.path("environment").path("warmupPods.hami-scheduler").asString()))
        .isBetween(200, 2000);
    JsonNode ceiling = r.path("ceiling");
    assertThat(ceiling.path("bound").asInt()).isEqualTo(100);
    assertThat(ceiling.path("writesPerPod").asDouble()).isEqualTo(1.0);
    assertThat(ceiling.path("requestsPerPod").has("get nodes")).isFalse();
    assertThat(r.path("checks").path("violations")).isEmpty();
    assertThat(r.path("checks").path("unbound").asInt()).isZero();
  }

  @Test
  void sameNodeBurst_throughTheNodeAgentsAllocate_hasNoMisallocation(ControlPlane cp)
      throws Exception {
    JsonNode r = run(cp, "config/bench/same-node-burst.yaml", "--baseline", "none");
    JsonNode ours = r.path("ours");
    assertThat(ours.path("bound").asInt()).isEqualTo(100);
    assertThat(ours.path("created").asInt()).isEqualTo(100);
    assertThat(r.path("checks").path("violations")).isEmpty();
    assertThat(r.path("checks").path("errors")).isEmpty();
    assertThat(r.path("ceiling").isNull() || r.path("ceiling").isMissingNode()).isTrue();
  }

  /**
   * A scheduler_perf constraint workload, scaled down, scheduled by ours and then by kube-scheduler
   * on the same apiserver, each draining a backlog ({@code --backlog}: the pods created while the
   * scheduler process is stopped, then timed from its resume). Pods arriving while the scheduler
   * runs are measured by the Basic case above. kube-scheduler comes from {@code KUBE_SCHEDULER},
   * which test-e2e/bin/build-control-plane.sh prints; without it the test is skipped.
   */
  @Test
  void podAntiAffinity_scaledDown_bothSchedulersBindEveryPod_andTheRatioIsPrinted(ControlPlane cp)
      throws Exception {
    String kubeScheduler = System.getenv("KUBE_SCHEDULER");
    assumeTrue(
        kubeScheduler != null && Files.isExecutable(Path.of(kubeScheduler)),
        "KUBE_SCHEDULER is not set to an executable kube-scheduler"
            + " (test-e2e/bin/build-control-plane.sh builds it and prints KUBE_SCHEDULER=...)");
    StringWriter out = new StringWriter();
    JsonNode r =
        run(
            cp,
            "config/bench/pod-anti-affinity.yaml",
            out,
            "--nodes",
            "60",
            "--init-pods",
            "10",
            "--pods",
            "50",
            "--qps",
            "50",
            "--backlog",
            "--kube-scheduler",
            kubeScheduler);
    for (String phase : new String[] {"ours", "kubeScheduler"}) {
      JsonNode p = r.path(phase);
      assertThat(p.path("created").asInt()).as(phase).isEqualTo(50);
      assertThat(p.path("bound").asInt()).as(phase).isEqualTo(50);
      assertThat(p.path("createToBindMs").path("count").asInt()).as(phase).isEqualTo(50);
      assertThat(p.path("cpuSeconds").asDouble()).as(phase).isPositive();
      assertThat(p.path("writesPerPod").asDouble()).as(phase).isGreaterThanOrEqualTo(1.0);
    }
    // kube-scheduler's one binding per pod, counted by its client as a create. Its metrics are
    // scraped once the last pod shows bound, which can be before its client has counted the last
    // few bindings (0.94 seen with 50 pods on a loaded machine).
    assertThat(r.path("kubeScheduler").path("requestsPerPod").path("create *").asDouble())
        .isGreaterThanOrEqualTo(0.9);
    assertThat(r.path("kubeSchedulerRatio").asDouble()).isPositive();
    assertThat(r.path("checks").path("unbound").asInt()).isZero();
    assertThat(r.path("checks").path("errors")).isEmpty();
    assertThat(out.toString()).contains("ours / kube-scheduler (avg pods/s): **");
    assertThat(r.path("environment").path("measure").asText()).startsWith("backlog");
  }
}
