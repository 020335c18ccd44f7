package io.hami.cmd.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A scheduler measured in its own process: its metrics, whether it still runs, its log. */
interface ScrapedProcess extends AutoCloseable {
  /** The process's metrics now. */
  PromText scrape() throws IOException, InterruptedException;

  boolean isAlive();

  Path log();

  long pid();

  /**
   * Stops the process (SIGSTOP) so that pods can pile up before it schedules any: its watches stay
   * open and it resumes where it was.
   */
  default void pause() throws IOException, InterruptedException {
    signal(pid(), "STOP");
  }

  /** Lets a paused process run again (SIGCONT). */
  default void resume() throws IOException, InterruptedException {
    signal(pid(), "CONT");
  }

  @Override
  void close();

  /**
   * Sends signal {@code name} to {@code pid} with kill(1); the JDK can only terminate a process.
   */
  static void signal(long pid, String name) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(pid))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      throw new IOException("kill -" + name + " " + pid + " did not return within 10 s");
    }
    if (kill.exitValue() != 0) {
      String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      throw new IOException(
          "kill -" + name + " " + pid + " exited " + kill.exitValue() + ": " + out);
    }
  }
}
