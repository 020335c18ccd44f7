package io.hami.sim;

import io.hami.model.JsonStrings;
import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * Writes a simulation report as JSON: per trace and policy, mean and SD at the headline points, the
 * per-seed values at 100% arrived, the published value, failed pods, and the mean curves of every
 * metric for x = 0..130 (null where no record is near x).
 */
public final class JsonReport {

  private JsonReport() {}

  public static void write(SimulationReport report, Writer out) throws IOException {
    StringBuilder b = new StringBuilder(1 << 16);
    b.append("{\n  \"seeds\": ").append(longs(report.seeds()));
    b.append(",\n  \"replays\": ").append(TextReport.replays(report));
    b.append(",\n  \"seconds\": ").append(num(report.seconds()));
    b.append(",\n  \"traces\": [");
    boolean firstTrace = true;
    for (TraceSummary t : report.traces()) {
      b.append(firstTrace ? "\n" : ",\n");
      firstTrace = false;
      b.append("    {\n      \"trace\": ").append(str(t.trace()));
      b.append(",\n      \"nodes\": ").append(t.nodes());
      b.append(",\n      \"gpus\": ").append(t.gpus());
      b.append(",\n      \"pods\": ").append(t.pods());
      b.append(",\n      \"emptyFragmentationRate\": ").append(num(t.emptyFragmentationRate()));
      b.append(",\n      \"targetShapes\": ").append(t.targetShapes());
      b.append(",\n      \"policies\": [");
      boolean firstPolicy = true;
      for (PolicySummary p : t.policies()) {
        b.append(firstPolicy ? "\n" : ",\n");
        firstPolicy = false;
        policy(b, p);
      }
      b.append("\n      ]\n    }");
    }
    b.append("\n  ]\n}\n");
    out.write(b.toString());
    out.flush();
  }

  private static void policy(StringBuilder b, PolicySummary p) {
    String in = "        ";
    b.append(in).append("{\n");
    b.append(in).append("  \"policy\": ").append(str(p.policy()));
    b.append(",\n").append(in).append("  \"name\": ").append(str(p.displayName()));
    b.append(",\n").append(in).append("  \"paper\": ");
    if (p.paper().isPresent()) {
      PaperNumbers.Value v = p.paper().get();
      double diff = p.mean(Curves.Metric.UNALLOCATED_GPU, 100) - v.mean();
      b.append("{\"unallocatedAt100\": {\"mean\": ")
          .append(num(v.mean()))
          .append(", \"sd\": ")
          .append(num(v.sd()))
          .append("}, \"difference\": ")
          .append(num(diff))
          .append(", \"tolerance\": ")
          .append(num(v.tolerance()))
          .append(", \"withinTolerance\": ")
          .append(Math.abs(diff) <= v.tolerance())
          .append('}');
    } else {
      b.append("null");
    }
    b.append(",\n").append(in).append("  \"at\": {");
    int[] xs = {90, 95, 100, 110, 120, 130};
    for (int i = 0; i < xs.length; i++) {
      int x = xs[i];
      b.append(i == 0 ? "\n" : ",\n").append(in).append("    \"").append(x).append("\": {");
      boolean first = true;
      for (Curves.Metric m : Curves.Metric.values()) {
        b.append(first ? "" : ", ");
        first = false;
        b.append(str(key(m)))
            .append(": {\"mean\": ")
            .append(num(p.mean(m, x)))
            .append(", \"sd\": ")
            .append(num(p.sd(m, x)))
            .append('}');
      }
      b.append('}');
    }
    b.append("\n").append(in).append("  }");
    b.append(",\n")
        .append(in)
        .append("  \"unallocatedAt100PerSeed\": ")
        .append(nums(p.perSeed(Curves.Metric.UNALLOCATED_GPU, 100)));
    b.append(",\n").append(in).append("  \"podsSubmitted\": ").append(ints(p.podsSubmitted()));
    b.append(",\n").append(in).append("  \"failedPodsAtEnd\": ").append(ints(p.failedAtEnd()));
    b.append(",\n").append(in).append("  \"meanCurves\": {");
    boolean first = true;
    for (Curves.Metric m : Curves.Metric.values()) {
      b.append(first ? "\n" : ",\n");
      first = false;
      b.append(in).append("    ").append(str(key(m))).append(": ").append(nums(p.meanCurve(m)));
    }
    b.append("\n").append(in).append("  }\n").append(in).append('}');
  }

  static String key(Curves.Metric m) {
    return switch (m) {
      case UNALLOCATED_GPU -> "unallocatedGpuPercent";
      case FRAGMENTATION_RATE -> "fragmentationRatePercent";
      case FRAGMENT_AMOUNT -> "fragmentPercentOfGpus";
      case FAILED_PODS -> "failedPods";
    };
  }

  static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "null";
    }
    String s = String.format(Locale.ROOT, "%.4f", v);
    s = s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    return s.equals("-0") ? "0" : s;
  }

  private static String nums(double[] v) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < v.length; i++) {
      b.append(i == 0 ? "" : ", ").append(num(v[i]));
    }
    return b.append(']').toString();
  }

  private static String ints(int[] v) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < v.length; i++) {
      b.append(i == 0 ? "" : ", ").append(v[i]);
    }
    return b.append(']').toString();
  }

  private static String longs(List<Long> v) {
    return v.toString();
  }

  static String str(String s) {
    return JsonStrings.quote(s);
  }
}
