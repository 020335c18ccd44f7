package io.hami.cmd.bench;

import java.io.IOException;
import java.nio.file.Path;

/** A scheduler measured in its own process: its metrics, whether it still runs, its log. */
interface ScrapedProcess extends AutoCloseable {
  /** The process's metrics now. */
  PromText scrape() throws IOException, InterruptedException;

  boolean isAlive();

  Path log();

  @Override
  void close();
}
