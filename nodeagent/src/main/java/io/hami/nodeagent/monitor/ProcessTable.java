package io.hami.nodeagent.monitor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The host's processes as the monitor needs them to reclaim dead processes' slots: what {@code
 * /proc/<pid>/stat} says of one host pid. {@link #knownDead} applies libvgpu's rule ({@code
 * shared_region.h}, "Reclaim:") to the answer.
 */
interface ProcessTable {
  /** What the process table says of one pid. */
  sealed interface Entry permits Running, Absent, Unreadable {}

  /**
   * The pid names a process (possibly a zombie).
   *
   * @param state field 3 of its stat line ({@code Z} zombie, {@code X}/{@code x} dead)
   * @param startTime field 22, clock ticks since boot
   */
  record Running(char state, long startTime) implements Entry {}

  /** No process has the pid: {@code /proc/<pid>} is absent. */
  record Absent() implements Entry {}

  /** The entry could not be read (EACCES under hidepid, a malformed line): proves nothing. */
  record Unreadable(String reason) implements Entry {}

  /** Looks up one host pid; never throws. */
  Entry stat(int pid);

  /** The table of the host the agent runs on ({@code hostPID: true}). */
  static ProcessTable host() {
    return new ProcFs(Path.of("/proc"));
  }

  /**
   * Whether a slot's process is known dead: it has no entry, it is a zombie, or its pid now names a
   * process started at another time than the slot's {@code start_time} (pid reused; 0 on either
   * side is no evidence). An unreadable entry counts as alive: reclaiming a live process's slot
   * would drop its charges and let its container exceed the memory limit.
   */
  static boolean knownDead(Entry e, long slotStartTime) {
    if (e instanceof Absent) {
      return true;
    }
    if (e instanceof Running r) {
      if (r.state() == 'Z' || r.state() == 'X' || r.state() == 'x') {
        return true;
      }
      return slotStartTime != 0 && r.startTime() != 0 && r.startTime() != slotStartTime;
    }
    return false;
  }

  /** Why {@link #knownDead} judged {@code e} dead, for the log. */
  static String why(Entry e, long slotStartTime) {
    if (e instanceof Running r) {
      return r.state() == 'Z' || r.state() == 'X' || r.state() == 'x'
          ? "exited, not reaped (state " + r.state() + ")"
          : "pid reused: started at tick " + r.startTime() + ", the slot's at " + slotStartTime;
    }
    return e instanceof Absent ? "no such process" : "unknown";
  }

  /** Reads {@code <root>/<pid>/stat}. */
  final class ProcFs implements ProcessTable {
    private final Path root;

    ProcFs(Path root) {
      this.root = root;
    }

    @Override
    public Entry stat(int pid) {
      if (pid <= 0) {
        return new Unreadable("pid " + pid);
      }
      Path file = root.resolve(Integer.toString(pid)).resolve("stat");
      String line;
      try {
        line = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
      } catch (NoSuchFileException e) {
        return new Absent();
      } catch (AccessDeniedException e) {
        return new Unreadable(file + ": permission denied");
      } catch (IOException e) {
        // ESRCH: the task went away between open and read.
        return String.valueOf(e.getMessage()).contains("No such process")
            ? new Absent()
            : new Unreadable(file + ": " + e.getMessage());
      }
      if (line.isEmpty()) {
        return new Absent();
      }
      return parse(file, line);
    }

    /** Fields 3 and 22 of a stat line; the command (field 2) may hold spaces and parentheses. */
    static Entry parse(Path file, String line) {
      int close = line.lastIndexOf(')');
      if (close < 0 || close + 2 >= line.length() || line.charAt(close + 1) != ' ') {
        return new Unreadable(file + ": malformed stat line");
      }
      String[] rest = line.substring(close + 2).trim().split(" ");
      // rest[0] is field 3, so field 22 is rest[19].
      if (rest.length < 20 || rest[0].length() != 1) {
        return new Unreadable(file + ": malformed stat line");
      }
      try {
        return new Running(rest[0].charAt(0), Long.parseUnsignedLong(rest[19]));
      } catch (NumberFormatException e) {
        return new Unreadable(file + ": start time " + rest[19]);
      }
    }
  }
}
