package io.hami.cmd.cluster;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One child process of the harness with its output appended to a log file. It can be stopped and
 * started again with the same command line, which is how restarts of a component are simulated.
 *
 * <p>Thread-safe: every method is synchronized.
 */
final class ManagedProcess implements AutoCloseable {
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final String name;
  private final List<String> command;
  private final Path logFile;
  private final Path workDir;
  private @Nullable Process process;

  ManagedProcess(String name, List<String> command, Path logFile, Path workDir) {
    this.name = requireNonNull(name);
    this.command = List.copyOf(command);
    this.logFile = requireNonNull(logFile);
    this.workDir = requireNonNull(workDir);
  }

  String name() {
    return name;
  }

  Path logFile() {
    return logFile;
  }

  synchronized void start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
    }
    Files.createDirectories(logFile.getParent());
    Files.writeString(
        logFile,
        "==== starting " + name + ": " + String.join(" ", command) + System.lineSeparator(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    process =
        new ProcessBuilder(inOwnSession(command))
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    // Lets a later run stop this process if the JVM that started it is killed (see Orphans).
    Files.writeString(
        pidFile(), process.pid() + "\n" + command.get(0) + "\n", StandardCharsets.UTF_8);
  }

  /**
   * Runs the command in a session of its own when {@code setsid} is there, so that Ctrl-C in a
   * terminal reaches only the JVM, which stops its processes in order. {@code setsid} execs in
   * place (a child of the JVM leads no process group), so the pid stays the command's.
   */
  private static List<String> inOwnSession(List<String> command) {
    for (String dir : List.of("/usr/bin", "/bin")) {
      Path setsid = Path.of(dir, "setsid");
      if (Files.isExecutable(setsid)) {
        List<String> wrapped = new ArrayList<>();
        wrapped.add(setsid.toString());
        wrapped.addAll(command);
        return wrapped;
      }
    }
    return command;
  }

  Path pidFile() {
    return workDir.resolve(name + ".pid");
  }

  synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Exit code of the last run, or empty while it runs or before the first start. */
  synchronized OptionalInt exitCode() {
    if (process == null || process.isAlive()) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(process.exitValue());
  }

  /** Sends SIGTERM, then SIGKILL after a grace period. Idempotent. */
  synchronized void stop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Kills the process at once, as a crash would. */
  synchronized void kill() throws InterruptedException {
    Process p = process;
    if (p != null && p.isAlive()) {
      p.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The last {@code maxBytes} of the log, for error messages. */
  String logTail(int maxBytes) {
    try (RandomAccessFile f = new RandomAccessFile(logFile.toFile(), "r")) {
      long start = Math.max(0, f.length() - maxBytes);
      byte[] buf = new byte[(int) (f.length() - start)];
      f.seek(start);
      f.readFully(buf);
      return new String(buf, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(log " + logFile + " unreadable: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name + (isAlive() ? " (running)" : " (stopped)");
  }
}
