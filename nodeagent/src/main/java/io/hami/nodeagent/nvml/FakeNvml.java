package io.hami.nodeagent.nvml;

import com.google.common.collect.ImmutableList;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * GPUs that exist only in memory, for tests and {@code --fake-gpus}. GPUs on the same NUMA node are
 * linked through a host bridge, others across CPUs; NVLinks can be added. XID errors are injected
 * with {@link #injectXid}.
 */
public final class FakeNvml implements Nvml {
  private final ImmutableList<GpuInfo> devices;
  private final int[][] nvlinks;
  private final BlockingQueue<XidEvent> xids = new LinkedBlockingQueue<>();

  public FakeNvml(List<GpuInfo> devices) {
    this.devices = ImmutableList.copyOf(devices);
    this.nvlinks = new int[devices.size()][devices.size()];
  }

  public static FakeNvml fromSpec(String spec, String nodeName) {
    return new FakeNvml(FakeGpuSpec.parse(spec, nodeName));
  }

  /** Adds {@code count} NVLinks between two GPUs, in both directions. */
  public FakeNvml withNvLinks(int a, int b, int count) {
    nvlinks[a][b] = count;
    nvlinks[b][a] = count;
    return this;
  }

  /** Adds NVLinks in one direction only (an asymmetric topology). */
  public FakeNvml withOneWayNvLinks(int from, int to, int count) {
    nvlinks[from][to] = count;
    return this;
  }

  public void injectXid(int deviceIndex, long xid) {
    xids.add(new XidEvent(deviceIndex, xid));
  }

  @Override
  public String describe() {
    return "fake NVML, " + devices.size() + " GPU(s)";
  }

  @Override
  public List<GpuInfo> devices() {
    return devices;
  }

  @Override
  public PcieLink pcieLink(int a, int b) {
    return devices.get(a).numaNode() == devices.get(b).numaNode()
        ? PcieLink.HOST_BRIDGE
        : PcieLink.CROSS_CPU;
  }

  @Override
  public int nvLinks(int from, int to) {
    devices.get(from);
    devices.get(to);
    return nvlinks[from][to];
  }

  @Override
  public XidWatch watchXids() {
    return new XidWatch() {
      @Override
      public Optional<XidEvent> await(Duration timeout) throws InterruptedException {
        return Optional.ofNullable(xids.poll(timeout.toMillis(), TimeUnit.MILLISECONDS));
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {}
}
