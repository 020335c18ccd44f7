package io.hami.sim;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML report (no scripts, fonts or links to fetch): per trace, the results table
 * and two inline SVG charts against arrived workload, unallocated GPU % and fragmentation rate, one
 * line per policy (mean over seeds).
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

  private HtmlReport() {}

  public static void write(SimulationReport report, Writer out) throws IOException {
    StringBuilder b = new StringBuilder(1 << 16);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    b.append("<title>hami simulate: placement policies on cluster traces</title>\n<style>\n");
    b.append(
        "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;max-width:1100px}\n");
    b.append("table{border-collapse:collapse;margin:1em 0;font-variant-numeric:tabular-nums}\n");
    b.append(
        "th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}\n");
    b.append("td:first-child,th:first-child{text-align:left}.best{font-weight:bold}\n");
    b.append(".ok{color:#2a7d2a}.off{color:#b22}svg{display:block;margin:1em 0}\n");
    b.append(".note{color:#555;font-size:90%}\n</style></head><body>\n");
    b.append("<h1>Placement policies on cluster traces</h1>\n");
    b.append("<p class=\"note\">Each trace is replayed once per policy and seed (")
        .append(esc(TextReport.seedRange(report.seeds())))
        .append(
            "): pods shuffled, tuned to 130% of GPU capacity, placed one by one with no departures."
                + " Values are means over seeds (± population SD). Paper values: Weng et al., USENIX ATC'23.</p>\n");
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
    chart(
        b,
        t.trace() + ": unallocated GPU % vs arrived workload",
        t.policies(),
        Curves.Metric.UNALLOCATED_GPU,
        true);
    chart(
        b,
        t.trace() + ": fragmentation rate vs arrived workload",
        t.policies(),
        Curves.Metric.FRAGMENTATION_RATE,
        false);
  }

  private static String cell(PolicySummary p, Curves.Metric m, int x) {
    double mean = p.mean(m, x);
    return Double.isNaN(mean) ? "–" : String.format(Locale.ROOT, "%.2f ±%.2f", mean, p.sd(m, x));
  }

  private static void chart(
      StringBuilder b, String title, List<PolicySummary> policies, Curves.Metric m, boolean ideal) {
    double max = 0;
    for (PolicySummary p : policies) {
      for (double v : p.meanCurve(m)) {
        if (!Double.isNaN(v)) {
          max = Math.max(max, v);
        }
      }
    }
    double step = niceStep(Math.max(max, 1) / 5);
    double yMax = Math.ceil(Math.max(max, 1) / step) * step;
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                + " role=\"img\" aria-label=\"%s\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W,
            H,
            W,
            H,
            esc(title)));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
            LEFT,
            esc(title)));
    for (int x = 0; x <= Curves.MAX_X; x += 10) {
      double px = LEFT + plotW * x / (double) Curves.MAX_X;
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
              px,
              TOP,
              px,
              TOP + plotH,
              px,
              TOP + plotH + 16,
              x));
    }
    for (double y = 0; y <= yMax + 1e-9; y += step) {
      double py = TOP + plotH - plotH * y / yMax;
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
              LEFT,
              py,
              LEFT + plotW,
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
            plotW,
            plotH));
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arrived workload (%% of GPU capacity)</text>\n",
            LEFT + plotW / 2,
            H - 12));
    b.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
            TOP + plotH / 2,
            esc(m.label())));
    int legendY = TOP + 10;
    if (ideal) {
      double[] line = new double[Curves.MAX_X + 1];
      for (int x = 0; x <= Curves.MAX_X; x++) {
        line[x] = Math.max(0, 100 - x);
      }
      polyline(b, line, yMax, plotW, plotH, "#bbb", "stroke-dasharray=\"4 4\"");
      legend(b, legendY, "#bbb", "ideal (100 − x)", true);
      legendY += 18;
    }
    for (int i = 0; i < policies.size(); i++) {
      String color = COLORS[i % COLORS.length];
      polyline(b, policies.get(i).meanCurve(m), yMax, plotW, plotH, color, "");
      legend(b, legendY, color, policies.get(i).displayName(), false);
      legendY += 18;
    }
    b.append("</svg>\n");
  }

  private static void polyline(
      StringBuilder b, double[] v, double yMax, int plotW, int plotH, String color, String extra) {
    StringBuilder pts = new StringBuilder();
    for (int x = 0; x < v.length; x++) {
      if (Double.isNaN(v[x])) {
        flush(b, pts, color, extra);
        continue;
      }
      double px = LEFT + plotW * x / (double) Curves.MAX_X;
      double py = TOP + plotH - plotH * Math.min(v[x], yMax) / yMax;
      pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
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

  private static void legend(StringBuilder b, int y, String color, String label, boolean dashed) {
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
            dashed ? " stroke-dasharray=\"4 4\"" : "",
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
