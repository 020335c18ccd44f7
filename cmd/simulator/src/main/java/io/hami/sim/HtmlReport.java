package io.hami.sim;

import com.google.common.collect.ImmutableMap;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML report (no scripts, fonts or links to fetch): what the policies do and what
 * the measures mean; per trace, the results table, a recommendation, and inline SVG charts against
 * arrived workload (unallocated GPU % zoomed on 85–130% and whole, fragmentation rate), one line
 * per policy (mean over seeds) with its mean ± SD band.
 */
public final class HtmlReport {

  private static final String[] COLORS = {
    "#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#d62728", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22"
  };
  private static final int W = 720;
  private static final int H = 380;
  private static final int LEFT = 60;
  private static final int RIGHT = 150;
  private static final int TOP = 30;
  private static final int BOTTOM = 50;
  private static final int PLOT_W = W - LEFT - RIGHT;
  private static final int PLOT_H = H - TOP - BOTTOM;

  /** Where the zoomed chart starts: the region where policies part ways. */
  private static final int ZOOM_FROM = 85;

  /** Dash patterns, so that lines lying on each other stay told apart. */
  private static final String[] DASHES = {"", "6 3", "2 2", "8 3 2 3", "1 3", "10 4", "4 2 1 2"};

  private static final ImmutableMap<String, String> DESCRIPTIONS =
      ImmutableMap.<String, String>builder()
          .put("random", "Any node and GPU that fit, drawn at random: the baseline.")
          .put(
              "dotprod",
              "The node whose free CPU and GPU best align with the pod's request (smallest"
                  + " normalised dot product).")
          .put(
              "clustering",
              "Keeps GPU-sharing pods together and whole-GPU pods together, on nodes already"
                  + " holding their kind.")
          .put(
              "packing",
              "Fills partly used GPUs first, then partly used nodes, then the smallest empty"
                  + " nodes.")
          .put("bestfit", "The node with the least CPU and GPU left over after placing the pod.")
          .put(
              "fgd",
              "Fragmentation gradient descent: the node and GPU whose use grows the cluster's"
                  + " fragmentation (for the trace's typical pods) the least.")
          .put(
              "hami-binpack",
              "HAMi's binpack (the vgpu plugin's node and GPU policy binpack): the node whose GPUs"
                  + " are the most used by HAMi's node score (share slots, cores and memory held),"
                  + " then on it the most used GPUs that fit. Nodes with equal scores, such as"
                  + " empty ones, go by the default scores (the most CPU and memory left, then"
                  + " the best balanced).")
          .put(
              "hami-spread",
              "HAMi's spread (node and GPU policy spread): the node whose GPUs are the least"
                  + " used by HAMi's node score, then on it the least used GPUs that fit; equal"
                  + " scores go by the default scores, as for binpack. Spreads load and"
                  + " interference, at the cost of whole free GPUs.")
          .buildOrThrow();

  private HtmlReport() {}

  public static void write(SimulationReport report, Writer out) throws IOException {
    StringBuilder b = new StringBuilder(1 << 16);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    b.append("<title>hami simulate: placement policies on cluster traces</title>\n<style>\n");
    b.append(
        "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;color:#222;"
            + "max-width:1200px;padding:0 1em}\n");
    b.append("table{border-collapse:collapse;margin:1em 0;font-variant-numeric:tabular-nums}\n");
    b.append(
        "th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}\n");
    b.append("td:first-child,th:first-child{text-align:left}.best{font-weight:bold}\n");
    b.append(".ok{color:#2a7d2a}.off{color:#b22}svg{display:block;width:100%;height:auto}\n");
    b.append(
        ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:1em}\n");
    b.append(".advice{background:#f3f8f3;border-left:4px solid #2a7d2a;padding:.6em 1em}\n");
    b.append("dt{font-weight:bold;margin-top:.4em}dd{margin-left:1.5em}\n");
    b.append(".note{color:#555;font-size:90%}\n</style></head><body>\n");
    b.append("<h1>Placement policies on cluster traces</h1>\n");
    b.append("<p class=\"note\">Each trace is replayed once per policy and seed (")
        .append(esc(TextReport.seedRange(report.seeds())))
        .append(
            "): pods shuffled, tuned to 130% of GPU capacity, placed one by one with no departures."
                + " Values are means over seeds (± population SD); the charts shade mean ± SD."
                + " Paper values: Weng et al., USENIX ATC'23.</p>\n");
    glossary(b, report);
    for (TraceSummary t : report.traces()) {
      trace(b, t);
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<p class=\"note\">%d replays in %.1f s.</p>\n</body></html>\n",
            TextReport.replays(report),
            report.seconds()));
    out.write(b.toString());
    out.flush();
  }

  private static void trace(StringBuilder b, TraceSummary t) {
    b.append("<h2>Trace ").append(esc(t.trace())).append("</h2>\n");
    b.append(
        String.format(
            Locale.ROOT,
            "<p>%d nodes, %d GPUs, %d pods; empty-cluster fragmentation rate %.2f%%; target workload of %d"
                + " task shapes.</p>\n",
            t.nodes(),
            t.gpus(),
            t.pods(),
            t.emptyFragmentationRate(),
            t.targetShapes()));
    b.append("<table><tr><th>policy</th>");
    for (int x : TextReport.POINTS) {
      b.append("<th>unallocated GPU % at ").append(x).append("%</th>");
    }
    b.append(
        "<th>paper at 100%</th><th>frag rate % at 90%</th><th>frag rate % at 100%</th>"
            + "<th>failed pods at 100%</th></tr>\n");
    PolicySummary best = null;
    for (PolicySummary p : t.policies()) {
      if (best == null
          || p.mean(Curves.Metric.UNALLOCATED_GPU, 100)
              < best.mean(Curves.Metric.UNALLOCATED_GPU, 100)) {
        best = p;
      }
    }
    for (PolicySummary p : t.policies()) {
      b.append("<tr")
          .append(p == best ? " class=\"best\"" : "")
          .append("><td>")
          .append(esc(p.displayName()))
          .append("</td>");
      for (int x : TextReport.POINTS) {
        b.append("<td>").append(cell(p, Curves.Metric.UNALLOCATED_GPU, x)).append("</td>");
      }
      if (p.paper().isPresent()) {
        PaperNumbers.Value v = p.paper().get();
        double diff = p.mean(Curves.Metric.UNALLOCATED_GPU, 100) - v.mean();
        boolean ok = Math.abs(diff) <= v.tolerance();
        b.append(
            String.format(
                Locale.ROOT,
                "<td>%.2f ±%.2f <span class=\"%s\">(%+.2f)</span></td>",
                v.mean(),
                v.sd(),
                ok ? "ok" : "off",
                diff));
      } else {
        b.append("<td>–</td>");
      }
      b.append("<td>").append(cell(p, Curves.Metric.FRAGMENTATION_RATE, 90)).append("</td>");
      b.append("<td>").append(cell(p, Curves.Metric.FRAGMENTATION_RATE, 100)).append("</td>");
      b.append(
          String.format(
              Locale.ROOT, "<td>%.0f</td></tr>\n", p.mean(Curves.Metric.FAILED_PODS, 100)));
    }
    b.append("</table>\n");
    if (best != null) {
      advice(b, t, best);
    }
    b.append("<div class=\"charts\">\n");
    chart(
        b,
        new Axes(
            t.trace() + ": unallocated GPU % near and past full (85–130% arrived)",
            Curves.Metric.UNALLOCATED_GPU,
            ZOOM_FROM,
            Curves.MAX_X,
            true),
        t.policies());
    chart(
        b,
        new Axes(
            t.trace() + ": fragmentation rate vs arrived workload",
            Curves.Metric.FRAGMENTATION_RATE,
            0,
            Curves.MAX_X,
            false),
        t.policies());
    chart(
        b,
        new Axes(
            t.trace() + ": unallocated GPU % vs arrived workload",
            Curves.Metric.UNALLOCATED_GPU,
            0,
            Curves.MAX_X,
            true),
        t.policies());
    b.append("</div>\n");
  }

  /**
   * Names the policy that leaves the least GPU unallocated at 100% arrived, and says whether its
   * lead over the runner-up is larger than the spread between seeds.
   */
  private static void advice(StringBuilder b, TraceSummary t, PolicySummary best) {
    PolicySummary second = null;
    for (PolicySummary p : t.policies()) {
      if (p != best
          && (second == null
              || p.mean(Curves.Metric.UNALLOCATED_GPU, 100)
                  < second.mean(Curves.Metric.UNALLOCATED_GPU, 100))) {
        second = p;
      }
    }
    double bestMean = best.mean(Curves.Metric.UNALLOCATED_GPU, 100);
    b.append("<p class=\"advice\"><b>Recommendation for this trace:</b> ")
        .append(esc(best.displayName()))
        .append(
            String.format(
                Locale.ROOT,
                " leaves the least GPU unallocated when the arrived workload reaches the cluster's"
                    + " capacity (%.2f%%)",
                bestMean));
    if (second != null) {
      double gap = second.mean(Curves.Metric.UNALLOCATED_GPU, 100) - bestMean;
      double noise =
          Math.max(
              best.sd(Curves.Metric.UNALLOCATED_GPU, 100),
              second.sd(Curves.Metric.UNALLOCATED_GPU, 100));
      b.append(
          String.format(
              Locale.ROOT,
              "; the next best, %s, leaves %.2f points more, %s.",
              esc(second.displayName()),
              gap,
              gap > 2 * noise
                  ? "a difference well beyond the spread between seeds"
                  : "within twice the spread between seeds, so either will do"));
    } else {
      b.append('.');
    }
    b.append("</p>\n");
  }

  /** What each policy does and what the measures mean. */
  private static void glossary(StringBuilder b, SimulationReport report) {
    b.append("<h2>How to read this report</h2>\n<dl>\n");
    b.append(
        "<dt>Unallocated GPU %</dt><dd>GPU capacity that no pod holds, as a share of all GPUs,"
            + " once a given share of the cluster's GPU capacity has arrived as pods. Past 100%"
            + " arrived, every unallocated GPU is capacity the policy could not use: lower is"
            + " better.</dd>\n");
    b.append(
        "<dt>Fragmentation rate %</dt><dd>Of the free GPU capacity, the share that the typical"
            + " pods of the trace cannot use: GPUs with too little left for a pod's share, or free"
            + " GPUs on nodes lacking the CPU, GPU model or GPU count a pod needs (FGD's measure)."
            + " Lower means the free capacity is still usable.</dd>\n");
    b.append("</dl>\n<dl>\n");
    List<String> seen = new ArrayList<>();
    for (TraceSummary t : report.traces()) {
      for (PolicySummary p : t.policies()) {
        String d = DESCRIPTIONS.get(p.policy());
        if (d != null && !seen.contains(p.policy())) {
          seen.add(p.policy());
          b.append("<dt>")
              .append(esc(p.displayName()))
              .append("</dt><dd>")
              .append(esc(d))
              .append("</dd>\n");
        }
      }
    }
    b.append("</dl>\n");
  }

  private static String cell(PolicySummary p, Curves.Metric m, int x) {
    double mean = p.mean(m, x);
    return Double.isNaN(mean) ? "–" : String.format(Locale.ROOT, "%.2f ±%.2f", mean, p.sd(m, x));
  }

  /** A chart's title, metric and x range; {@code ideal} draws the 100 − x line. */
  private record Axes(String title, Curves.Metric metric, int fromX, int toX, boolean ideal) {}

  private static void chart(StringBuilder b, Axes a, List<PolicySummary> policies) {
    Curves.Metric m = a.metric();
    double max = 0;
    for (PolicySummary p : policies) {
      for (int x = a.fromX(); x <= a.toX(); x++) {
        double v = p.mean(m, x) + p.sd(m, x);
        if (!Double.isNaN(v)) {
          max = Math.max(max, v);
        }
      }
    }
    double step = niceStep(Math.max(max, 1) / 5);
    double yMax = Math.ceil(Math.max(max, 1) / step) * step;
    Frame f = new Frame(a.fromX(), a.toX(), yMax);
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
                + " role=\"img\" aria-label=\"%s\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W,
            H,
            esc(a.title())));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
            LEFT,
            esc(a.title())));
    int xStep = a.toX() - a.fromX() > 60 ? 10 : 5;
    for (int x = a.fromX(); x <= a.toX(); x += xStep) {
      double px = f.x(x);
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
              px,
              TOP,
              px,
              TOP + PLOT_H,
              x == 100 ? "#999" : "#eee",
              px,
              TOP + PLOT_H + 16,
              x));
    }
    for (double y = 0; y <= yMax + 1e-9; y += step) {
      double py = f.y(y);
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
              LEFT,
              py,
              LEFT + PLOT_W,
              py,
              LEFT - 6,
              py + 4,
              tick(y)));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
            LEFT,
            TOP,
            PLOT_W,
            PLOT_H));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arrived workload (%% of GPU capacity)</text>\n",
            LEFT + PLOT_W / 2,
            H - 12));
    b.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
            TOP + PLOT_H / 2,
            esc(m.label())));
    int legendY = TOP + 10;
    if (a.ideal()) {
      double[] line = new double[Curves.MAX_X + 1];
      for (int x = 0; x <= Curves.MAX_X; x++) {
        line[x] = Math.max(0, 100 - x);
      }
      polyline(b, f, line, "#bbb", "stroke-dasharray=\"4 4\"");
      legend(b, legendY, "#bbb", "ideal (100 − x)", "4 4");
      legendY += 18;
    }
    for (int i = 0; i < policies.size(); i++) {
      band(b, f, policies.get(i), m, COLORS[i % COLORS.length]);
    }
    for (int i = 0; i < policies.size(); i++) {
      String color = COLORS[i % COLORS.length];
      String dash = DASHES[i % DASHES.length];
      polyline(
          b,
          f,
          policies.get(i).meanCurve(m),
          color,
          dash.isEmpty() ? "" : "stroke-dasharray=\"" + dash + "\"");
      legend(b, legendY, color, policies.get(i).displayName(), dash);
      legendY += 18;
    }
    b.append("</svg>\n");
  }

  /** Maps chart values to the plot area: x over [fromX, toX], y over [0, yMax]. */
  private record Frame(int fromX, int toX, double yMax) {
    double x(double v) {
      return LEFT + PLOT_W * (v - fromX) / (double) (toX - fromX);
    }

    double y(double v) {
      return TOP + PLOT_H - PLOT_H * Math.min(Math.max(v, 0), yMax) / yMax;
    }
  }

  /** The shaded mean ± SD of one policy over the frame's x range. */
  private static void band(
      StringBuilder b, Frame f, PolicySummary p, Curves.Metric m, String color) {
    StringBuilder upper = new StringBuilder();
    StringBuilder lower = new StringBuilder();
    for (int x = f.fromX(); x <= f.toX(); x++) {
      double mean = p.mean(m, x);
      double sd = p.sd(m, x);
      if (Double.isNaN(mean) || Double.isNaN(sd)) {
        continue;
      }
      upper.append(String.format(Locale.ROOT, "%.1f,%.1f ", f.x(x), f.y(mean + sd)));
      lower.insert(0, String.format(Locale.ROOT, "%.1f,%.1f ", f.x(x), f.y(mean - sd)));
    }
    if (upper.length() > 0) {
      b.append(
          String.format(
              Locale.ROOT,
              "<polygon fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\" points=\"%s\"/>\n",
              color,
              (upper.toString() + lower).trim()));
    }
  }

  private static void polyline(StringBuilder b, Frame f, double[] v, String color, String extra) {
    StringBuilder pts = new StringBuilder();
    for (int x = f.fromX(); x <= f.toX() && x < v.length; x++) {
      if (Double.isNaN(v[x])) {
        flush(b, pts, color, extra);
        continue;
      }
      pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", f.x(x), f.y(v[x])));
    }
    flush(b, pts, color, extra);
  }

  private static void flush(StringBuilder b, StringBuilder pts, String color, String extra) {
    if (pts.length() > 0) {
      b.append(
          String.format(
              Locale.ROOT,
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" %s points=\"%s\"/>\n",
              color,
              extra,
              pts.toString().trim()));
      pts.setLength(0);
    }
  }

  private static void legend(StringBuilder b, int y, String color, String label, String dash) {
    int x = W - RIGHT + 12;
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>\n",
            x,
            y,
            x + 20,
            y,
            color,
            dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
            x + 26,
            y + 4,
            esc(label)));
  }

  private static double niceStep(double raw) {
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    double f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }

  private static String tick(double y) {
    return y == Math.rint(y) ? Long.toString((long) y) : String.format(Locale.ROOT, "%.1f", y);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
