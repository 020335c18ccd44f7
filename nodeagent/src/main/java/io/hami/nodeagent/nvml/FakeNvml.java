package io.hami.nodeagent.nvml;

import com.google.common.collect.ImmutableList;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.hami.model.device.MigPlacement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * GPUs that exist only in memory, for tests and {@code --fake-gpus}. GPUs on the same NUMA node are
 * linked through a host bridge, others across CPUs; NVLinks can be added. XID errors are injected
 * with {@link #injectXid}.
 *
 * <p>A GPU in MIG mode offers the A100 GPU instance profiles (the 80 GB table from 64 GiB of memory
 * up, else the 40 GB one) and keeps the instances created on it: a placement that is not legal for
 * the profile, or that overlaps an existing instance, is refused with the code NVML gives. Instance
 * calls are serialised on this object.
 */
public final class FakeNvml implements Nvml {
  /** A100-SXM4-40GB, as {@code nvidia-smi mig -lgip} lists it. */
  static final ImmutableList<MigProfileInfo> A100_40GB =
      ImmutableList.of(
          profile(19, "1g.5gb", 4864, 1, 7, 1, 0, 1, 2, 3, 4, 5, 6),
          profile(15, "1g.10gb", 9856, 1, 4, 2, 0, 2, 4, 6),
          profile(14, "2g.10gb", 9856, 2, 3, 2, 0, 2, 4),
          profile(9, "3g.20gb", 19968, 3, 2, 4, 0, 4),
          profile(5, "4g.20gb", 19968, 4, 1, 4, 0),
          profile(0, "7g.40gb", 40192, 7, 1, 8, 0));

  /** A100-SXM4-80GB, as {@code nvidia-smi mig -lgip} lists it. */
  static final ImmutableList<MigProfileInfo> A100_80GB =
      ImmutableList.of(
          profile(19, "1g.10gb", 9728, 1, 7, 1, 0, 1, 2, 3, 4, 5, 6),
          profile(15, "1g.20gb", 19968, 1, 4, 2, 0, 2, 4, 6),
          profile(14, "2g.20gb", 19968, 2, 3, 2, 0, 2, 4),
          profile(9, "3g.40gb", 40192, 3, 2, 4, 0, 4),
          profile(5, "4g.40gb", 40192, 4, 1, 4, 0),
          profile(0, "7g.80gb", 80896, 7, 1, 8, 0));

  private final ImmutableList<GpuInfo> devices;
  private final int[][] nvlinks;
  private final BlockingQueue<XidEvent> xids = new LinkedBlockingQueue<>();

  @GuardedBy("this")
  private final List<List<MigInstance>> instances = new ArrayList<>();

  @GuardedBy("this")
  private long created;

  @GuardedBy("this")
  private final Map<Integer, List<ProcessUtilization>> utilization = new HashMap<>();

  public FakeNvml(List<GpuInfo> devices) {
    this.devices = ImmutableList.copyOf(devices);
    this.nvlinks = new int[devices.size()][devices.size()];
    synchronized (this) {
      for (int i = 0; i < devices.size(); i++) {
        instances.add(new ArrayList<>());
      }
    }
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

  /**
   * Scripts the per-process utilisation samples GPU {@code index} reports from now on (replacing
   * earlier ones); {@link #processUtilization} returns those newer than its {@code since}.
   */
  public synchronized void setProcessUtilization(int index, List<ProcessUtilization> samples) {
    utilization.put(checkIndex(index), List.copyOf(samples));
  }

  @Override
  public synchronized List<ProcessUtilization> processUtilization(int index, long sinceMicros) {
    List<ProcessUtilization> out = new ArrayList<>();
    for (ProcessUtilization p : utilization.getOrDefault(checkIndex(index), List.of())) {
      if (p.timestampMicros() > sinceMicros) {
        out.add(p);
      }
    }
    return ImmutableList.copyOf(out);
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
  public List<MigProfileInfo> migProfiles(int index) {
    GpuInfo g = devices.get(index);
    if (!g.migEnabled()) {
      return List.of();
    }
    return g.memoryMiB() >= 65536 ? A100_80GB : A100_40GB;
  }

  @Override
  public synchronized List<MigInstance> migInstances(int index) {
    return ImmutableList.copyOf(instances.get(checkIndex(index)));
  }

  @Override
  public synchronized MigInstance createMigInstance(
      int index, int profileId, MigPlacement placement) throws NvmlException {
    GpuInfo g = devices.get(checkIndex(index));
    if (!g.migEnabled()) {
      throw new NvmlException(
          NvmlException.NOT_SUPPORTED,
          "nvmlDeviceCreateGpuInstanceWithPlacement: MIG mode is off on GPU " + index);
    }
    MigProfileInfo profile =
        migProfiles(index).stream()
            .filter(p -> p.profileId() == profileId)
            .findFirst()
            .orElseThrow(
                () ->
                    new NvmlException(
                        NvmlException.INVALID_ARGUMENT,
                        "nvmlDeviceGetGpuInstancePossiblePlacements: no profile id " + profileId));
    if (!profile.placements().contains(placement)) {
      throw new NvmlException(
          NvmlException.INVALID_ARGUMENT,
          "nvmlDeviceCreateGpuInstanceWithPlacement: placement "
              + placement.start()
              + ":"
              + placement.size()
              + " is not legal for "
              + profile.name());
    }
    List<MigInstance> on = instances.get(index);
    for (MigInstance i : on) {
      if (MigInstance.overlap(i.placement(), placement)) {
        throw new NvmlException(
            NvmlException.INSUFFICIENT_RESOURCES,
            "nvmlDeviceCreateGpuInstanceWithPlacement: Insufficient Resources");
      }
    }
    int gi = 1;
    while (hasGpuInstance(on, gi)) {
      gi++;
    }
    created++;
    String seed = g.uuid() + "/" + gi + "/" + created;
    String uuid = "MIG-" + UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8));
    MigInstance out = new MigInstance(gi, 0, profileId, placement, uuid);
    on.add(out);
    return out;
  }

  @Override
  public synchronized void destroyMigInstance(int index, int gpuInstanceId, int computeInstanceId)
      throws NvmlException {
    List<MigInstance> on = instances.get(checkIndex(index));
    for (int i = 0; i < on.size(); i++) {
      MigInstance m = on.get(i);
      if (m.gpuInstanceId() == gpuInstanceId) {
        if (computeInstanceId >= 0 && m.computeInstanceId() != computeInstanceId) {
          throw new NvmlException(
              NvmlException.NOT_FOUND,
              "nvmlGpuInstanceGetComputeInstanceById: Not Found (" + computeInstanceId + ")");
        }
        on.remove(i);
        return;
      }
    }
    throw new NvmlException(
        NvmlException.NOT_FOUND, "nvmlGpuInstanceGetById: Not Found (" + gpuInstanceId + ")");
  }

  private static boolean hasGpuInstance(List<MigInstance> on, int gi) {
    return on.stream().anyMatch(i -> i.gpuInstanceId() == gi);
  }

  private int checkIndex(int index) {
    if (index < 0 || index >= devices.size()) {
      throw new IllegalArgumentException("no GPU with index " + index);
    }
    return index;
  }

  private static MigProfileInfo profile(
      int id, String name, long memoryMiB, int slices, int count, int size, int... starts) {
    List<MigPlacement> at = new ArrayList<>();
    for (int start : starts) {
      at.add(new MigPlacement(start, size));
    }
    return new MigProfileInfo(id, name, memoryMiB, slices, count, at);
  }

  @Override
  public void close() {}
}
