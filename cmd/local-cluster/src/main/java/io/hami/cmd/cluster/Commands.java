package io.hami.cmd.cluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs short helper commands (openssl, the build script) and reports failures with their output.
 */
public final class Commands {
  private Commands() {}

  public record Result(int exitCode, String stdout, String stderr) {}

  /** Runs {@code command} in {@code dir}; throws with the command's output when it fails. */
  public static Result run(List<String> command, Path dir, Duration timeout) throws IOException {
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(
            "timed out after "
                + timeout
                + ": "
                + String.join(" ", command)
                + "\n"
                + err.getNow(""));
      }
      Result r = new Result(p.exitValue(), out.get(), err.get());
      if (r.exitCode() != 0) {
        throw new IOException(
            "exit code "
                + r.exitCode()
                + " from "
                + String.join(" ", command)
                + "\n"
                + r.stderr()
                + r.stdout());
      }
      return r;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    } catch (ExecutionException e) {
      throw new IOException("reading the output of " + String.join(" ", command), e.getCause());
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "(output unreadable: " + e.getMessage() + ")";
          }
        });
  }
}
