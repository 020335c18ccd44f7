package io.hami.sim;

/** Mean and population standard deviation, ignoring NaN values. */
record Stats(double mean, double sd, int n) {

  static Stats of(double[] values) {
    double sum = 0;
    int n = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        sum += v;
        n++;
      }
    }
    if (n == 0) {
      return new Stats(Double.NaN, Double.NaN, 0);
    }
    double mean = sum / n;
    double sq = 0;
    for (double v : values) {
      if (!Double.isNaN(v)) {
        sq += (v - mean) * (v - mean);
      }
    }
    return new Stats(mean, Math.sqrt(sq / n), n);
  }
}
