package io.hami.cmd.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/**
 * The CPU time a JVM's JIT compiler threads ({@code C1 CompilerThread0}, {@code C2
 * CompilerThread0}...) have used, read from {@code /proc/<pid>/task/*}/stat on Linux. The JVM's own
 * compilation-time counter adds up the wall-clock time of each compilation, which a paused or
 * CPU-starved process inflates; this counts the CPU.
 */
final class CompilerCpu {
  /** Clock ticks per second of {@code /proc} times (USER_HZ, 100 on every Linux build). */
  static final double TICKS_PER_SECOND = 100;

  private CompilerCpu() {}

  /** The compiler threads' CPU seconds of process {@code pid}, or empty without {@code /proc}. */
  static OptionalDouble seconds(long pid) {
    return seconds(Path.of("/proc", Long.toString(pid), "task"));
  }

  static OptionalDouble seconds(Path tasks) {
    if (!Files.isDirectory(tasks)) {
      return OptionalDouble.empty();
    }
    long ticks = 0;
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
      for (Path task : dir) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
          continue; // the thread ended meanwhile
        }
        ticks += compilerTicks(stat);
      }
    } catch (IOException e) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(ticks / TICKS_PER_SECOND);
  }

  /** utime + stime of one {@code stat} line when its thread is a JIT compiler thread, else 0. */
  static long compilerTicks(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      return 0;
    }
    String name = stat.substring(open + 1, close);
    if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
      return 0;
    }
    // After "(comm) ": state is field 3; utime and stime are fields 14 and 15.
    String[] f = stat.substring(close + 2).trim().split("\\s+");
    if (f.length < 13) {
      return 0;
    }
    try {
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
