package io.hami.nodeagent.nvml;

import com.google.common.collect.ImmutableList;
import io.hami.model.device.MigPlacement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** NVML through the JNI shim. The driver library is opened with dlopen when created. */
public final class JniNvml implements Nvml {
  public static final String LIBRARY = "libnvidia-ml.so.1";

  /**
   * Name suffixes of the {@code NVML_GPU_INSTANCE_PROFILE_*} constants, by index (REV1 carries the
   * media extensions, REV2 is a one-slice profile with twice the memory, GFX/NO_ME/ALL_ME variants
   * follow); the index is where NVML looks the profile up.
   */
  private static final ImmutableList<String> PROFILE_SUFFIXES =
      ImmutableList.of(
          "", "", "", "", "", "", "", "+me", "+me", "", "+gfx", "+gfx", "+gfx", "-me", "-me",
          "+me.all", "+me.all");

  private final SysfsNuma numa;
  private final long[] handles;
  private final String[] busIds;
  private final String driver;

  private JniNvml(SysfsNuma numa) throws NvmlException {
    this.numa = numa;
    this.driver = NvmlNatives.driverVersion();
    int count = NvmlNatives.deviceCount();
    this.handles = new long[count];
    this.busIds = new String[count];
    for (int i = 0; i < count; i++) {
      handles[i] = NvmlNatives.handle(i);
      busIds[i] = NvmlNatives.pciBusId(handles[i]);
    }
  }

  /**
   * Loads the shim, opens {@value #LIBRARY} and initialises NVML. Throws with code {@link
   * NvmlException#NOT_LOADED} and a message starting "NVML not available" on hosts without it.
   */
  public static JniNvml open(SysfsNuma numa) throws NvmlException {
    NativeLibrary.ensureLoaded();
    String why = NvmlNatives.load(LIBRARY);
    if (why != null) {
      throw new NvmlException(NvmlException.NOT_LOADED, why);
    }
    NvmlNatives.init();
    return new JniNvml(numa);
  }

  @Override
  public String describe() {
    return "NVML, driver " + driver + ", " + handles.length + " GPU(s)";
  }

  @Override
  public List<GpuInfo> devices() throws NvmlException {
    List<GpuInfo> out = new ArrayList<>(handles.length);
    for (int i = 0; i < handles.length; i++) {
      long h = handles[i];
      long bytes = NvmlNatives.memoryTotal(h);
      out.add(
          new GpuInfo(
              i,
              NvmlNatives.uuid(h),
              NvmlNatives.name(h),
              bytes < 0 ? -1 : bytes >> 20,
              busIds[i],
              numa.numaNode(busIds[i]),
              NvmlNatives.migEnabled(h) != 0));
    }
    return ImmutableList.copyOf(out);
  }

  @Override
  public PcieLink pcieLink(int a, int b) throws NvmlException {
    return PcieLink.fromNvmlLevel(NvmlNatives.commonAncestor(handle(a), handle(b)));
  }

  @Override
  public int nvLinks(int from, int to) throws NvmlException {
    return NvmlNatives.nvLinksTo(handle(from), busIds[checkIndex(to)]);
  }

  @Override
  public XidWatch watchXids() throws NvmlException {
    long set = NvmlNatives.eventSetCreate();
    try {
      for (long h : handles) {
        NvmlNatives.registerXid(set, h);
      }
    } catch (NvmlException e) {
      NvmlNatives.eventSetFree(set);
      throw e;
    }
    return new XidWatch() {
      @Override
      public Optional<XidEvent> await(Duration timeout) throws NvmlException {
        long[] ev =
            NvmlNatives.eventWait(set, (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
        return ev == null ? Optional.empty() : Optional.of(new XidEvent((int) ev[0], ev[2]));
      }

      @Override
      public void close() {
        try {
          NvmlNatives.eventSetFree(set);
        } catch (NvmlException e) {
          // Nothing to do: the set is gone either way.
        }
      }
    };
  }

  @Override
  public List<MigProfileInfo> migProfiles(int index) throws NvmlException {
    long h = handle(index);
    if (NvmlNatives.migEnabled(h) == 0) {
      return List.of();
    }
    long bytes = NvmlNatives.memoryTotal(h);
    long gpuMiB = bytes < 0 ? -1 : bytes >> 20;
    List<MigProfileInfo> out = new ArrayList<>();
    for (int p = 0; p < PROFILE_SUFFIXES.size(); p++) {
      long[] info = NvmlNatives.migProfile(h, p);
      if (info == null || info[1] <= 0) {
        continue;
      }
      int id = (int) info[0];
      int slices = (int) info[1];
      int[] flat = NvmlNatives.migPlacements(h, id);
      List<MigPlacement> at = new ArrayList<>(flat.length / 2);
      for (int i = 0; i + 1 < flat.length; i += 2) {
        at.add(new MigPlacement(flat[i], flat[i + 1]));
      }
      String name = MigProfileInfo.nameOf(slices, info[3], gpuMiB, PROFILE_SUFFIXES.get(p));
      out.add(new MigProfileInfo(id, name, info[3], slices, (int) info[2], at));
    }
    return ImmutableList.copyOf(out);
  }

  @Override
  public List<MigInstance> migInstances(int index) throws NvmlException {
    long h = handle(index);
    int[] flat = NvmlNatives.migInstances(h);
    List<MigInstance> out = new ArrayList<>(flat.length / 5);
    for (int i = 0; i + 4 < flat.length; i += 5) {
      int gi = flat[i];
      int ci = flat[i + 4];
      String uuid = ci < 0 ? null : NvmlNatives.migUuid(h, gi, ci);
      out.add(
          new MigInstance(
              gi,
              uuid == null ? -1 : ci,
              flat[i + 1],
              new MigPlacement(flat[i + 2], flat[i + 3]),
              uuid == null ? "" : uuid));
    }
    return ImmutableList.copyOf(out);
  }

  @Override
  public MigInstance createMigInstance(int index, int profileId, MigPlacement placement)
      throws NvmlException {
    long h = handle(index);
    int[] ids = NvmlNatives.migCreate(h, profileId, placement.start(), placement.size());
    String uuid;
    try {
      uuid = NvmlNatives.migUuid(h, ids[0], ids[1]);
      if (uuid == null) {
        throw new NvmlException(
            NvmlException.NOT_FOUND,
            "no MIG device for GPU instance " + ids[0] + " compute instance " + ids[1]);
      }
    } catch (NvmlException e) {
      destroyQuietly(h, ids[0], ids[1]);
      throw e;
    }
    return new MigInstance(ids[0], ids[1], profileId, placement, uuid);
  }

  @Override
  public void destroyMigInstance(int index, int gpuInstanceId, int computeInstanceId)
      throws NvmlException {
    NvmlNatives.migDestroy(handle(index), gpuInstanceId, computeInstanceId);
  }

  @Override
  public List<ProcessUtilization> processUtilization(int index, long sinceMicros)
      throws NvmlException {
    long[] flat = NvmlNatives.processUtilization(handle(index), sinceMicros);
    List<ProcessUtilization> out = new ArrayList<>(flat.length / 4);
    for (int i = 0; i + 3 < flat.length; i += 4) {
      out.add(
          new ProcessUtilization((int) flat[i], flat[i + 1], (int) flat[i + 2], (int) flat[i + 3]));
    }
    return ImmutableList.copyOf(out);
  }

  private static void destroyQuietly(long h, int gi, int ci) {
    try {
      NvmlNatives.migDestroy(h, gi, ci);
    } catch (NvmlException e) {
      // The create already failed; the reaper retries instances no pod holds.
    }
  }

  @Override
  public void close() {
    try {
      NvmlNatives.shutdown();
    } catch (NvmlException e) {
      // Shutting down; the driver state no longer matters.
    }
  }

  private long handle(int index) {
    return handles[checkIndex(index)];
  }

  private int checkIndex(int index) {
    if (index < 0 || index >= handles.length) {
      throw new IllegalArgumentException("no GPU with index " + index);
    }
    return index;
  }
}
