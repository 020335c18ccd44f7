package io.hami.sim;

import java.util.function.IntToDoubleFunction;

/**
 * Metrics read against arrived workload, as the paper's analysis scripts read them: each pod record
 * gets an arrived percentage a = round(100 · arrived / capacity) (half to even), and the value at x
 * is the mean over the records with a = x, or over a ∈ [x−1, x+1] when there are none, rounded to 2
 * decimals. NaN when no record is near x.
 */
public final class Curves {

  /** Highest arrived percentage read (the workload is tuned to 130%). */
  public static final int MAX_X = 130;

  /** Which metric a curve shows. */
  public enum Metric {
    UNALLOCATED_GPU("unallocated GPU %"),
    FRAGMENTATION_RATE("fragmentation rate %"),
    FRAGMENT_AMOUNT("fragment % of GPUs"),
    FAILED_PODS("failed pods");

    private final String label;

    Metric(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private Curves() {}

  /** Arrived percentage of each record, rounded half to even. */
  static int[] arrivedPercent(RunResult r) {
    int[] a = new int[r.pods()];
    long cap = r.capacity();
    for (int i = 0; i < a.length; i++) {
      long num = r.arrived()[i] * 100;
      long q = num / cap;
      long rem2 = 2 * (num % cap);
      if (rem2 > cap || (rem2 == cap && (q & 1) == 1)) {
        q++;
      }
      a[i] = (int) q;
    }
    return a;
  }

  /** The metric's curve for x = 0..130. */
  public static double[] curve(RunResult r, Metric m) {
    IntToDoubleFunction value = valueOf(r, m);
    int[] a = arrivedPercent(r);
    double[] sum = new double[MAX_X + 3];
    int[] count = new int[MAX_X + 3];
    for (int i = 0; i < a.length; i++) {
      int x = a[i];
      if (x < 0 || x > MAX_X + 1) {
        continue;
      }
      double v = value.applyAsDouble(i);
      if (Double.isNaN(v)) {
        continue;
      }
      sum[x] += v;
      count[x]++;
    }
    double[] out = new double[MAX_X + 1];
    for (int x = 0; x <= MAX_X; x++) {
      double s;
      int c;
      if (count[x] > 0) {
        s = sum[x];
        c = count[x];
      } else {
        s = sum[x + 1] + (x > 0 ? sum[x - 1] : 0);
        c = count[x + 1] + (x > 0 ? count[x - 1] : 0);
      }
      out[x] = c == 0 ? Double.NaN : round2(s / c);
    }
    return out;
  }

  private static IntToDoubleFunction valueOf(RunResult r, Metric m) {
    return switch (m) {
      case UNALLOCATED_GPU -> r::unallocatedPercent;
      case FRAGMENTATION_RATE -> r::fragmentationRate;
      case FRAGMENT_AMOUNT -> r::fragmentPercent;
      case FAILED_PODS -> {
        int[] failed = new int[r.pods()];
        int f = 0;
        for (int i = 0; i < failed.length; i++) {
          if (r.node()[i] < 0) {
            f++;
          }
          failed[i] = f;
        }
        yield i -> failed[i];
      }
    };
  }

  static double round2(double v) {
    return Math.rint(v * 100) / 100;
  }
}
