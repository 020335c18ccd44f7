package io.hami.plugins.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/** Reads values back from a registry, as a scrape would see them. */
public final class Scrape {
  private Scrape() {}

  /**
   * The value of the series {@code name} (counters without {@code _total}) whose labels include
   * {@code labels} (name, value pairs); 0 when absent. Histograms answer their count.
   */
  public static double value(PrometheusRegistry registry, String name, String... labels) {
    double sum = 0;
    for (MetricSnapshot s : registry.scrape()) {
      if (!s.getMetadata().getName().equals(name)) {
        continue;
      }
      for (DataPointSnapshot d : s.getDataPoints()) {
        if (!matches(d, labels)) {
          continue;
        }
        if (d instanceof CounterSnapshot.CounterDataPointSnapshot c) {
          sum += c.getValue();
        } else if (d instanceof GaugeSnapshot.GaugeDataPointSnapshot g) {
          sum += g.getValue();
        } else if (d instanceof HistogramSnapshot.HistogramDataPointSnapshot h) {
          sum += h.getCount();
        }
      }
    }
    return sum;
  }

  /** The sum of the histogram series' observations. */
  public static double sum(PrometheusRegistry registry, String name, String... labels) {
    double sum = 0;
    for (MetricSnapshot s : registry.scrape()) {
      if (s.getMetadata().getName().equals(name)) {
        for (DataPointSnapshot d : s.getDataPoints()) {
          if (matches(d, labels) && d instanceof HistogramSnapshot.HistogramDataPointSnapshot h) {
            sum += h.getSum();
          }
        }
      }
    }
    return sum;
  }

  private static boolean matches(DataPointSnapshot d, String[] labels) {
    for (int i = 0; i + 1 < labels.length; i += 2) {
      if (!labels[i + 1].equals(d.getLabels().get(labels[i]))) {
        return false;
      }
    }
    return true;
  }
}
