package io.hami.cmd.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What one {@code hami bench cluster} run measured: the scheduler under test, the same pods without
 * GPU requests through it and through kube-scheduler, and the API ceiling, side by side. Written as
 * JSON and as a markdown table.
 *
 * @param workload the workload's name
 * @param nodes nodes in the cluster
 * @param pods measured pods asked for
 * @param environment where it ran (cores, JVM, control plane)
 * @param ours the scheduler under test, on the workload's pods (GPU pods for a GPU workload)
 * @param nonGpu the scheduler under test on the same pods without GPU requests; null when not run
 * @param kubeScheduler kube-scheduler on the same pods (without GPU requests for a GPU workload);
 *     null when not run
 * @param ceiling the API ceiling; null when not run
 * @param kubeSchedulerRatio ours / kube-scheduler in average pods per second (for a GPU workload
 *     the GPU path against kube-scheduler without GPUs); null without kube-scheduler
 * @param nonGpuRatio ours without GPUs / kube-scheduler in average pods per second; null without
 *     either
 * @param ceilingRatio ours / ceiling in average pods per second; null without a ceiling
 * @param checks sanity checks: invariant violations, pods left unbound, unschedulable pods bound
 */
record BenchReport(
    String workload,
    int nodes,
    int pods,
    Map<String, String> environment,
    Phase ours,
    @Nullable Phase nonGpu,
    @Nullable Phase kubeScheduler,
    @Nullable Phase ceiling,
    @Nullable Double kubeSchedulerRatio,
    @Nullable Double nonGpuRatio,
    @Nullable Double ceilingRatio,
    Checks checks) {

  /**
   * The phases a run measured, in the report's order.
   *
   * @param ours the scheduler under test on the workload's pods
   * @param nonGpu the scheduler under test on the same pods without GPU requests; null when not run
   * @param kubeScheduler kube-scheduler on the same pods; null when not run
   * @param ceiling the API ceiling; null when not run
   */
  record Phases(
      Phase ours, @Nullable Phase nonGpu, @Nullable Phase kubeScheduler, @Nullable Phase ceiling) {}

  /** The report of {@code phases}, with the ratios between them. */
  static BenchReport of(Workload w, Map<String, String> environment, Phases phases, Checks checks) {
    Phase kube = phases.kubeScheduler();
    return new BenchReport(
        w.name(),
        w.nodes().count(),
        w.pods().count(),
        environment,
        phases.ours(),
        phases.nonGpu(),
        kube,
        phases.ceiling(),
        ratio(phases.ours(), kube),
        ratio(phases.nonGpu(), kube),
        ratio(phases.ours(), phases.ceiling()),
        checks);
  }

  /** {@code a / b} in average pods per second; null when either is missing or b bound nothing. */
  static @Nullable Double ratio(@Nullable Phase a, @Nullable Phase b) {
    return a == null || b == null || b.podsPerSecond() == 0
        ? null
        : a.podsPerSecond() / b.podsPerSecond();
  }

  /** The phases that ran, in the report's order. */
  List<Phase> phases() {
    List<Phase> out = new ArrayList<>();
    out.add(ours);
    if (nonGpu != null) {
      out.add(nonGpu);
    }
    if (kubeScheduler != null) {
      out.add(kubeScheduler);
    }
    if (ceiling != null) {
      out.add(ceiling);
    }
    return out;
  }

  /**
   * One measured phase.
   *
   * @param name who bound the pods
   * @param created pods created
   * @param bound of those, pods bound
   * @param seconds from the first create to the last bind
   * @param podsPerSecond bound / seconds
   * @param perSecond statistics of the pods bound in each second
   * @param createToBindMs statistics of create-to-bind latency
   * @param requestsPerPod requests by {@code "verb resource"} per bound pod (client-side)
   * @param writesPerPod create, update, patch and delete requests per bound pod
   * @param bindingWritesPerPod the same without Events (asynchronous, off the binding path) and
   *     without node handshake patches (per node and period, not per pod)
   * @param cpuSeconds CPU time of the binding process during the phase; null when unknown
   * @param heapMiB statistics of the heap in use, sampled each second; null when unknown
   * @param internals the binder's own figures (attempts by result, mean cycle and binding time)
   * @param createdPerSecond how fast the pods were created: a binder that keeps up binds at this
   *     rate, so a slow API server shows here rather than as a slow binder
   */
  record Phase(
      String name,
      int created,
      int bound,
      double seconds,
      double podsPerSecond,
      Stats perSecond,
      Stats createToBindMs,
      Map<String, Double> requestsPerPod,
      double writesPerPod,
      double bindingWritesPerPod,
      @Nullable Double cpuSeconds,
      @Nullable Stats heapMiB,
      Map<String, Double> internals,
      double createdPerSecond) {}

  /**
   * @param violations invariant violations (over-committed devices, allocations that disagree)
   * @param unbound measured pods still unbound at the end
   * @param unschedulableCreated unschedulable pods created while measuring
   * @param unschedulableBound of those, how many got bound (must be 0)
   * @param errors harness errors (failed creates, node-side failures)
   */
  record Checks(
      List<String> violations,
      int unbound,
      int unschedulableCreated,
      int unschedulableBound,
      List<String> errors) {
    boolean ok() {
      return violations.isEmpty() && unbound == 0 && unschedulableBound == 0;
    }
  }

  static boolean isWrite(String verbResource) {
    String verb = verbResource.substring(0, verbResource.indexOf(' '));
    return switch (verb) {
      case "create", "update", "patch", "delete", "deletecollection" -> true;
      default -> false;
    };
  }

  String toJson() {
    return JsonMapper.builder()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .build()
        .writeValueAsString(this);
  }

  String toMarkdown() {
    StringBuilder b = new StringBuilder();
    b.append("### hami bench cluster: ")
        .append(workload)
        .append(" (")
        .append(nodes)
        .append(" nodes, ")
        .append(pods)
        .append(" pods)\n\n");
    // Every row's throughput against one yardstick: kube-scheduler where it ran, else the ceiling.
    Phase reference = kubeScheduler != null ? kubeScheduler : ceiling;
    b.append("| binder | bound | pods/s (avg) | ");
    if (reference != null) {
      b.append("÷ ").append(reference.name()).append(" | ");
    }
    b.append(
        "pods/s per-second p50 / p90 / p99 | create→bind p50 / p99 ms | writes/pod (binding path:"
            + " without events and handshakes) | requests/pod by verb | CPU s | heap MiB avg / max"
            + " | created/s |\n");
    b.append(reference != null ? "|---|---|---|---|" : "|---|---|---|")
        .append("---|---|---|---|---|---|---|\n");
    for (Phase p : phases()) {
      row(b, p, reference);
    }
    b.append('\n');
    for (Phase p : phases()) {
      if (!p.internals().isEmpty()) {
        List<String> in = new ArrayList<>();
        new TreeMap<>(p.internals())
            .forEach((k, v) -> in.add(String.format(Locale.ROOT, "%s=%.3f", k, v)));
        b.append(p == ours ? "Scheduler" : p.name())
            .append(" internals: ")
            .append(String.join(", ", in))
            .append("\n\n");
      }
    }
    if (kubeSchedulerRatio != null && nonGpu != null) {
      b.append(
          String.format(
              Locale.ROOT,
              "GPU path / kube-scheduler without GPUs (avg pods/s): **%.2f**%n%n",
              kubeSchedulerRatio));
    } else if (kubeSchedulerRatio != null) {
      b.append(
          String.format(
              Locale.ROOT, "ours / kube-scheduler (avg pods/s): **%.2f**%n%n", kubeSchedulerRatio));
    }
    if (nonGpuRatio != null) {
      b.append(
          String.format(
              Locale.ROOT,
              "ours / kube-scheduler, both without GPUs (avg pods/s): **%.2f**%n%n",
              nonGpuRatio));
    }
    if (ceilingRatio != null) {
      b.append(
          String.format(Locale.ROOT, "ours / ceiling (avg pods/s): **%.2f**%n%n", ceilingRatio));
    }
    b.append("Checks: ")
        .append(checks.violations().size())
        .append(" invariant violations, ")
        .append(checks.unbound())
        .append(" pods unbound");
    if (checks.unschedulableCreated() > 0) {
      b.append(", ")
          .append(checks.unschedulableBound())
          .append(" of ")
          .append(checks.unschedulableCreated())
          .append(" unschedulable pods bound");
    }
    b.append(".\n");
    for (String v : checks.violations().subList(0, Math.min(10, checks.violations().size()))) {
      b.append("- ").append(escape(v)).append('\n');
    }
    for (String e : checks.errors()) {
      b.append("- harness: ").append(escape(e)).append('\n');
    }
    b.append("\nEnvironment: ");
    List<String> env = new ArrayList<>();
    environment.forEach((k, v) -> env.add(k + "=" + v));
    b.append(String.join(", ", env)).append('\n');
    return b.toString();
  }

  private static void row(StringBuilder b, Phase p, @Nullable Phase reference) {
    Map<String, Double> sorted = new TreeMap<>(p.requestsPerPod());
    List<String> verbs = new ArrayList<>();
    sorted.forEach(
        (k, v) -> {
          if (v >= 0.005) {
            verbs.add(String.format(Locale.ROOT, "%s %.2f", k, v));
          }
        });
    b.append(
        String.format(
            Locale.ROOT,
            "| %s | %d/%d | %.1f | %s%.0f / %.0f / %.0f | %.0f / %.0f | %.2f (%.2f) | %s | %s | %s |"
                + " %.0f |%n",
            p.name(),
            p.bound(),
            p.created(),
            p.podsPerSecond(),
            reference == null ? "" : ratioCell(ratio(p, reference)),
            p.perSecond().p50(),
            p.perSecond().p90(),
            p.perSecond().p99(),
            p.createToBindMs().p50(),
            p.createToBindMs().p99(),
            p.writesPerPod(),
            p.bindingWritesPerPod(),
            String.join("<br>", verbs),
            p.cpuSeconds() == null ? "n/a" : String.format(Locale.ROOT, "%.1f", p.cpuSeconds()),
            p.heapMiB() == null
                ? "n/a"
                : String.format(Locale.ROOT, "%.0f / %.0f", p.heapMiB().mean(), p.heapMiB().max()),
            p.createdPerSecond()));
  }

  private static String ratioCell(@Nullable Double r) {
    return r == null ? "n/a | " : String.format(Locale.ROOT, "%.2f | ", r);
  }

  private static String escape(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }
}
