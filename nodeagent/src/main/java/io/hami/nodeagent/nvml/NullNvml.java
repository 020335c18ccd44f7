package io.hami.nodeagent.nvml;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A host without GPUs: no devices, no events. */
public final class NullNvml implements Nvml {
  private final String reason;

  public NullNvml(String reason) {
    this.reason = reason;
  }

  @Override
  public String describe() {
    return "no GPUs (" + reason + ")";
  }

  @Override
  public List<GpuInfo> devices() {
    return List.of();
  }

  @Override
  public PcieLink pcieLink(int a, int b) {
    throw new IllegalArgumentException("no GPU with index " + a);
  }

  @Override
  public int nvLinks(int from, int to) {
    throw new IllegalArgumentException("no GPU with index " + from);
  }

  @Override
  public XidWatch watchXids() {
    return new XidWatch() {
      @Override
      public Optional<XidEvent> await(Duration timeout) throws InterruptedException {
        Thread.sleep(timeout.toMillis());
        return Optional.empty();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {}
}
