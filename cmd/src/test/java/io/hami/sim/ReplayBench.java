package io.hami.sim;

import io.hami.plugins.placement.PaperPolicy;

/** Prints x=100 unallocated GPU % for each policy over seeds; args: trace [seeds]. */
public final class ReplayBench {
  public static void main(String[] args) throws Exception {
    String name = args.length > 0 ? args[0] : "default";
    int seeds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    long t0 = System.nanoTime();
    PreparedTrace t = PreparedTrace.of(BundledTraces.trace(name));
    System.out.printf("prepare %.2fs shapes=%d kept=%d empty frag %.4f%%%n",
        (System.nanoTime() - t0) / 1e9, t.shapeCount(), t.workload().size(), t.emptyFragmentationRate());
    for (PaperPolicy p : PaperPolicy.values()) {
      long t1 = System.nanoTime();
      double sum = 0;
      StringBuilder sb = new StringBuilder();
      for (int s = 42; s < 42 + seeds; s++) {
        RunResult r = new Replay(t).run(p, s);
        double v = Curves.curve(r, Curves.Metric.UNALLOCATED_GPU)[100];
        sum += v;
        sb.append(String.format(" %.2f", v));
      }
      System.out.printf("%-10s mean %.2f [%s] %.2fs%n", p.policyName(), sum / seeds, sb,
          (System.nanoTime() - t1) / 1e9);
    }
  }
}
