package io.hami.nodeagent.nvml;

import com.google.common.collect.ImmutableList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** NVML through the JNI shim. The driver library is opened with dlopen when created. */
public final class JniNvml implements Nvml {
  public static final String LIBRARY = "libnvidia-ml.so.1";

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
