package io.hami.sim;

import com.google.common.collect.ImmutableList;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The plain-text table printed after a simulation, one block per trace. */
public final class TextReport {

  /** Arrived workload percentages shown in the table. */
  public static final ImmutableList<Integer> POINTS = ImmutableList.of(90, 95, 100, 110);

  private TextReport() {}

  public static void write(SimulationReport report, PrintWriter out) {
    List<Long> seeds = report.seeds();
    for (TraceSummary t : report.traces()) {
      out.printf(
          Locale.ROOT,
          "%nTrace %s: %d nodes, %d GPUs, %d pods (tuned to 130%% of GPU capacity), %d seed%s (%s)%n",
          t.trace(),
          t.nodes(),
          t.gpus(),
          t.pods(),
          seeds.size(),
          seeds.size() == 1 ? "" : "s",
          seedRange(seeds));
      out.printf(
          Locale.ROOT,
          "Empty-cluster fragmentation rate %.2f%%; target workload of %d task shapes.%n%n",
          t.emptyFragmentationRate(),
          t.targetShapes());
      boolean anyPaper = t.policies().stream().anyMatch(p -> p.paper().isPresent());
      // Wide enough for the longest name with its best mark, and never narrower than before.
      int width = 12;
      for (PolicySummary p : t.policies()) {
        width = Math.max(width, p.displayName().length() + 2);
      }
      String nameColumn = "%-" + width + "s";
      StringBuilder h1 = new StringBuilder(String.format(Locale.ROOT, nameColumn, ""));
      StringBuilder h2 = new StringBuilder(String.format(Locale.ROOT, nameColumn, "policy"));
      for (int x : POINTS) {
        h1.append(
            String.format(
                Locale.ROOT, " %-13s", x == POINTS.get(0) ? "unallocated GPU % at arrived" : ""));
        h2.append(String.format(Locale.ROOT, " %-13s", x + "%"));
        if (x == 100 && anyPaper) {
          h1.append(String.format(Locale.ROOT, " %-19s", ""));
          h2.append(String.format(Locale.ROOT, " %-19s", "paper 100%  (diff)"));
        }
      }
      h1.append(String.format(Locale.ROOT, " %-13s %-13s %s", "frag rate %", "", "failed pods"));
      h2.append(String.format(Locale.ROOT, " %-13s %-13s %s", "90%", "100%", "at 100%"));
      out.println(h1.toString().stripTrailing());
      out.println(h2.toString().stripTrailing());
      PolicySummary best = null;
      for (PolicySummary p : t.policies()) {
        if (best == null
            || p.mean(Curves.Metric.UNALLOCATED_GPU, 100)
                < best.mean(Curves.Metric.UNALLOCATED_GPU, 100)) {
          best = p;
        }
      }
      for (PolicySummary p : t.policies()) {
        StringBuilder row =
            new StringBuilder(
                String.format(Locale.ROOT, nameColumn, p.displayName() + (p == best ? " *" : "")));
        for (int x : POINTS) {
          row.append(' ').append(cell(p, Curves.Metric.UNALLOCATED_GPU, x));
          if (x == 100 && anyPaper) {
            row.append(' ').append(paperCell(p));
          }
        }
        row.append(' ').append(cell(p, Curves.Metric.FRAGMENTATION_RATE, 90));
        row.append(' ').append(cell(p, Curves.Metric.FRAGMENTATION_RATE, 100));
        row.append(String.format(Locale.ROOT, " %.0f", p.mean(Curves.Metric.FAILED_PODS, 100)));
        out.println(row.toString().stripTrailing());
      }
      out.println();
      // Printed as is: "% a" is text here, not a format specifier.
      @SuppressWarnings("OrphanedFormatString")
      String legend =
          "Values are mean ±SD over seeds; * marks the least unallocated GPU at 100% arrived.";
      out.println(legend);
      if (anyPaper) {
        out.println(
            "Paper: Weng et al., USENIX ATC'23 (10-seed mean ±SD); 'ok' when within max(0.5 pp, 2 SD).");
      }
    }
    out.printf(Locale.ROOT, "%nRan %d replays in %.1f s.%n", replays(report), report.seconds());
    out.flush();
  }

  static int replays(SimulationReport r) {
    return r.traces().stream().mapToInt(t -> t.policies().size()).sum() * r.seeds().size();
  }

  static String seedRange(List<Long> seeds) {
    boolean consecutive = true;
    for (int i = 1; i < seeds.size(); i++) {
      consecutive &= seeds.get(i) == seeds.get(i - 1) + 1;
    }
    if (consecutive && seeds.size() > 2) {
      return seeds.get(0) + ".." + seeds.get(seeds.size() - 1);
    }
    return String.join(",", seeds.stream().map(String::valueOf).toList());
  }

  private static String cell(PolicySummary p, Curves.Metric m, int x) {
    double mean = p.mean(m, x);
    double sd = p.sd(m, x);
    if (Double.isNaN(mean)) {
      return String.format(Locale.ROOT, "%-13s", "-");
    }
    return String.format(Locale.ROOT, "%6.2f ±%-5.2f", mean, sd);
  }

  private static String paperCell(PolicySummary p) {
    if (p.paper().isEmpty()) {
      return String.format(Locale.ROOT, "%-19s", "-");
    }
    PaperNumbers.Value v = p.paper().get();
    double diff = p.mean(Curves.Metric.UNALLOCATED_GPU, 100) - v.mean();
    String verdict = Math.abs(diff) <= v.tolerance() ? "ok" : "off";
    return String.format(Locale.ROOT, "%5.2f (%+5.2f %-3s)", v.mean(), diff, verdict);
  }
}
