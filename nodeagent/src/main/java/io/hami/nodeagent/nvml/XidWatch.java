package io.hami.nodeagent.nvml;

import java.time.Duration;
import java.util.Optional;

/** A registration for XID critical errors. Used by one thread at a time. */
public interface XidWatch extends AutoCloseable {

  /** Waits up to {@code timeout} for the next event; empty when none came. */
  Optional<XidEvent> await(Duration timeout) throws NvmlException, InterruptedException;

  @Override
  void close();
}
