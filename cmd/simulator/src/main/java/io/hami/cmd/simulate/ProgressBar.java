package io.hami.cmd.simulate;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/** A one-line progress bar redrawn in place on stderr; silent when disabled. */
final class ProgressBar {
  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final boolean enabled;
  private final LongSupplier nanoTime;
  private long start;

  ProgressBar(PrintWriter err, boolean enabled, LongSupplier nanoTime) {
    this.err = err;
    this.enabled = enabled;
    this.nanoTime = nanoTime;
  }

  void start(int total) {
    start = nanoTime.getAsLong();
    update(0, total);
  }

  void update(int done, int total) {
    if (!enabled) {
      return;
    }
    int filled = total == 0 ? WIDTH : (int) ((long) WIDTH * done / total);
    double seconds = (nanoTime.getAsLong() - start) / 1e9;
    String eta =
        done == 0
            ? ""
            : String.format(Locale.ROOT, ", ~%.0f s left", seconds * (total - done) / done);
    err.printf(
        Locale.ROOT,
        "\r[%s%s] %d/%d replays, %.1f s%s   ",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        done,
        total,
        seconds,
        eta);
    err.flush();
  }

  void finish() {
    if (enabled) {
      err.print("\r" + " ".repeat(WIDTH + 60) + "\r");
      err.flush();
    }
  }
}
