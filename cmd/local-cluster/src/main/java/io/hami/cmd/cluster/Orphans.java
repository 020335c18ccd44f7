package io.hami.cmd.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops control-plane processes left behind by a JVM that was killed before it could stop them, and
 * removes their work directories. Work directories under {@code target/control-plane} are named
 * {@code <id>-<jvm pid>}; each process leaves a {@code <name>.pid} file holding its pid and
 * executable. A process is stopped only when its JVM is gone and its executable still matches.
 */
public final class Orphans {
  private static final Logger log = LoggerFactory.getLogger(Orphans.class);

  private Orphans() {}

  public static void reap(Path root) {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> dirs = Files.list(root)) {
      dirs.filter(Files::isDirectory).filter(Orphans::ownerGone).forEach(Orphans::reapDir);
    } catch (IOException e) {
      log.warn("cannot scan {} for leftover control planes: {}", root, e.toString());
    }
  }

  private static boolean ownerGone(Path dir) {
    String name = dir.getFileName().toString();
    int dash = name.lastIndexOf('-');
    if (dash < 0) {
      return false;
    }
    try {
      long owner = Long.parseLong(name.substring(dash + 1));
      return owner != ProcessHandle.current().pid()
          && ProcessHandle.of(owner).map(p -> !p.isAlive()).orElse(true);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static void reapDir(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.filter(f -> f.getFileName().toString().endsWith(".pid")).forEach(Orphans::stop);
    } catch (IOException e) {
      log.warn("cannot scan {}: {}", dir, e.toString());
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", dir, e.toString());
    }
  }

  private static boolean sameFile(String a, String b) {
    try {
      return a.equals(b) || Path.of(a).toRealPath().equals(Path.of(b).toRealPath());
    } catch (IOException e) {
      return false;
    }
  }

  private static void stop(Path pidFile) {
    try {
      List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
      if (lines.size() < 2) {
        return;
      }
      long pid = Long.parseLong(lines.get(0).trim());
      String executable = lines.get(1).trim();
      Optional<ProcessHandle> handle = ProcessHandle.of(pid);
      if (handle.isPresent()
          && handle.get().isAlive()
          && handle.get().info().command().map(c -> sameFile(c, executable)).orElse(false)) {
        log.warn("stopping {} (pid {}) left behind by a killed test run", executable, pid);
        handle.get().destroyForcibly();
      }
    } catch (IOException | NumberFormatException e) {
      log.warn("cannot read {}: {}", pidFile, e.toString());
    }
  }
}
