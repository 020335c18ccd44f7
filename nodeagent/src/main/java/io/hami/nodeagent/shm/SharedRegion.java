package io.hami.nodeagent.shm;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read of one container's shared region, in either layout {@link RegionLayout} knows. Values are
 * written concurrently by the container's processes, so a read is a sample, not an atomic snapshot;
 * that is enough for metrics and the monitor.
 */
public final class SharedRegion {
  private SharedRegion() {}

  /**
   * What one container uses on one device. A field the region's layout does not keep is 0
   * (HAMi-core keeps no peak, physical total, busy time, launch count or throttled time).
   */
  public record DeviceUsage(
      int index,
      String uuid,
      long memLimitBytes,
      long memUsedBytes,
      long memPeakBytes,
      long memTotalBytes,
      int smLimit,
      int smUtil,
      long busyNanos,
      long launches,
      long throttledNanos) {}

  /**
   * The header fields the agent reports, with the device records in use.
   *
   * @param layout which library wrote the region
   * @param versionMajor the layout's major version
   * @param versionMinor the layout's minor version
   * @param priority the container's task priority (0 = high)
   * @param utilizationSwitch the monitor's switch (1 = limit compute under policy default)
   * @param recentKernel the monitor's gate (below 0 blocks new launches)
   * @param lastKernelTime epoch seconds of the latest launch, 0 if none
   * @param devices the devices in use, by the container's ordinal
   */
  public record Snapshot(
      RegionLayout layout,
      int versionMajor,
      int versionMinor,
      int priority,
      int utilizationSwitch,
      int recentKernel,
      long lastKernelTime,
      ImmutableList<DeviceUsage> devices) {}

  /**
   * Thrown for a file that is in no layout the agent reads, or is unreadable; the message names the
   * file, its magic, version and size. {@link #uninitialised()} is true for a file its library has
   * not set up yet (the agent creates regions empty at Allocate), which is no error.
   */
  public static final class RegionException extends Exception {
    private final boolean uninitialised;

    public RegionException(String message) {
      this(message, false);
    }

    private RegionException(String message, boolean uninitialised) {
      super(message);
      this.uninitialised = uninitialised;
    }

    static RegionException uninitialised(String message) {
      return new RegionException(message, true);
    }

    /** True when the file is empty or has no magic yet. */
    public boolean uninitialised() {
      return uninitialised;
    }
  }

  public static Snapshot read(Path file) throws RegionException {
    String name = file.toString();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      ByteBuffer head = readFrom(ch, (int) Math.min(size, RegionLayout.PROBE_SIZE));
      RegionLayout layout = RegionLayout.select(name, head, size);
      return parse(name, layout, readFrom(ch, layout.bytesToRead(size)));
    } catch (IOException e) {
      throw new RegionException(name + ": " + e.getMessage());
    }
  }

  /** Parses an image of a whole region file: the layout is selected by its bytes and length. */
  static Snapshot parse(String name, ByteBuffer image) throws RegionException {
    ByteBuffer b = image.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    RegionLayout layout = RegionLayout.select(name, b, b.limit());
    return parse(name, layout, b);
  }

  private static Snapshot parse(String name, RegionLayout layout, ByteBuffer image)
      throws RegionException {
    ByteBuffer b = image.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.limit() < layout.bytesNeeded()) {
      // The file shrank between its size and its read.
      throw new RegionException(
          name
              + ": "
              + b.limit()
              + " bytes read, a "
              + layout
              + " region has "
              + layout.bytesNeeded());
    }
    return switch (layout) {
      case LIBVGPU -> libvgpu(b);
      case HAMI_CORE -> HamiCoreRegion.parse(b);
    };
  }

  private static Snapshot libvgpu(ByteBuffer b) {
    int count =
        Math.min(
            Math.max(b.getInt(SharedRegionLayout.H_DEVICE_COUNT), 0),
            SharedRegionLayout.MAX_DEVICES);
    long[] used = liveSlotsUsed(b, count);
    ImmutableList.Builder<DeviceUsage> devices = ImmutableList.builder();
    for (int i = 0; i < count; i++) {
      int at = SharedRegionLayout.DEVICE_RECORD_OFFSET + i * SharedRegionLayout.DEVICE_RECORD_SIZE;
      devices.add(
          new DeviceUsage(
              i,
              cString(b, at + SharedRegionLayout.D_UUID, SharedRegionLayout.UUID_LEN),
              b.getLong(at + SharedRegionLayout.D_MEM_LIMIT),
              used[i],
              b.getLong(at + SharedRegionLayout.D_MEM_PEAK),
              b.getLong(at + SharedRegionLayout.D_MEM_TOTAL),
              b.getInt(at + SharedRegionLayout.D_SM_LIMIT),
              b.getInt(at + SharedRegionLayout.D_SM_UTIL),
              b.getLong(at + SharedRegionLayout.D_BUSY_NS),
              b.getLong(at + SharedRegionLayout.D_LAUNCHES),
              b.getLong(at + SharedRegionLayout.D_THROTTLED_NS)));
    }
    return new Snapshot(
        RegionLayout.LIBVGPU,
        Short.toUnsignedInt(b.getShort(SharedRegionLayout.H_VERSION_MAJOR)),
        Short.toUnsignedInt(b.getShort(SharedRegionLayout.H_VERSION_MINOR)),
        b.getInt(SharedRegionLayout.H_PRIORITY),
        b.getInt(SharedRegionLayout.H_UTILIZATION_SWITCH),
        b.getInt(SharedRegionLayout.H_RECENT_KERNEL),
        b.getLong(SharedRegionLayout.H_LAST_KERNEL_TIME),
        devices.build());
  }

  /**
   * Memory in use per device record: {@code used[i]} summed over the slots with a pid. The header's
   * {@code mem_used} is exact only under the region's lock, which a reader does not take; the sum
   * also stops counting a slot the moment the monitor reclaims it (pid set to 0).
   */
  private static long[] liveSlotsUsed(ByteBuffer b, int count) {
    long[] used = new long[count];
    for (int k = 0; k < SharedRegionLayout.MAX_SLOTS; k++) {
      int at = SharedRegionLayout.HEADER_SIZE + k * SharedRegionLayout.SLOT_SIZE;
      if (b.getInt(at + SharedRegionLayout.S_PID) != 0) {
        for (int i = 0; i < count; i++) {
          used[i] += b.getLong(at + SharedRegionLayout.S_USED + i * Long.BYTES);
        }
      }
    }
    return used;
  }

  /** Reads up to {@code len} bytes from offset 0; fewer when the file is shorter. */
  private static ByteBuffer readFrom(FileChannel ch, int len) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining() && ch.read(b, b.position()) >= 0) {
      // read until the buffer is full or the file ends
    }
    return b.flip();
  }

  static String cString(ByteBuffer b, int at, int max) {
    int len = 0;
    while (len < max && b.get(at + len) != 0) {
      len++;
    }
    byte[] bytes = new byte[len];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
