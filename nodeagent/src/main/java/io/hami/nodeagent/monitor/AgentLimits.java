package io.hami.nodeagent.monitor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * The priority the agent granted a container, from the limits file it wrote at Allocate ({@code
 * <container dir>/limits}, contract §1: {@code key=value} lines, {@code #} comments). The region's
 * own priority field is writable by the container, so it is used only where no limits file exists
 * (containers allocated by an agent that did not write one).
 */
final class AgentLimits {
  static final String FILE_NAME = "limits";

  /** Priority of a limits file whose value cannot be read: the lowest, it holds nobody back. */
  static final int UNREADABLE = Integer.MAX_VALUE;

  private static final int MAX_BYTES = 64 * 1024;

  private AgentLimits() {}

  /**
   * The {@code priority} of the limits file in {@code dir}; empty when there is no such file,
   * {@link #UNREADABLE} when it exists but its priority is missing, malformed or the file cannot be
   * read.
   */
  static OptionalInt priority(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return OptionalInt.empty();
    }
    String text;
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      text = new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return OptionalInt.empty();
    } catch (IOException e) {
      return OptionalInt.of(UNREADABLE);
    }
    for (String raw : text.split("\n", -1)) {
      int hash = raw.indexOf('#');
      String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
      int eq = line.indexOf('=');
      if (eq > 0 && line.substring(0, eq).trim().equals("priority")) {
        try {
          return OptionalInt.of(Integer.parseInt(line.substring(eq + 1).trim()));
        } catch (NumberFormatException e) {
          return OptionalInt.of(UNREADABLE);
        }
      }
    }
    return OptionalInt.of(UNREADABLE);
  }
}
