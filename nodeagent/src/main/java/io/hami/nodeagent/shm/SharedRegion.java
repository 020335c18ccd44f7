package io.hami.nodeagent.shm;

import static io.hami.nodeagent.shm.SharedRegionLayout.*;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read of one container's shared region: the header and device records (the first 8 KiB). Values
 * are written concurrently by the container's processes, so a read is a sample, not an atomic
 * snapshot; that is enough for metrics.
 */
public final class SharedRegion {
  private SharedRegion() {}

  /** What one container uses on one device record. */
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

  /** The header fields the agent reports, with the device records in use. */
  public record Snapshot(
      int versionMinor, int priority, long lastKernelTime, ImmutableList<DeviceUsage> devices) {}

  /**
   * Thrown for a file that is not a layout-1 region (wrong magic, major, size) or is unreadable.
   */
  public static final class RegionException extends Exception {
    public RegionException(String message) {
      super(message);
    }
  }

  public static Snapshot read(Path file) throws RegionException {
    ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      if (ch.size() < REGION_SIZE) {
        throw new RegionException(file + ": " + ch.size() + " bytes, a region has " + REGION_SIZE);
      }
      while (b.hasRemaining() && ch.read(b, b.position()) >= 0) {
        // read until the header is complete
      }
    } catch (IOException e) {
      throw new RegionException(file + ": " + e.getMessage());
    }
    return parse(file.toString(), b);
  }

  static Snapshot parse(String name, ByteBuffer b) throws RegionException {
    if (b.getInt(H_MAGIC) != MAGIC) {
      throw new RegionException(
          name + ": not a libvgpu region (magic " + Integer.toHexString(b.getInt(H_MAGIC)) + ")");
    }
    int major = Short.toUnsignedInt(b.getShort(H_VERSION_MAJOR));
    if (major != VERSION_MAJOR) {
      throw new RegionException(
          name + ": region layout " + major + ".x, this agent reads " + VERSION_MAJOR + ".x");
    }
    if (b.getLong(H_REGION_SIZE) < REGION_SIZE) {
      throw new RegionException(
          name + ": region_size " + b.getLong(H_REGION_SIZE) + " < " + REGION_SIZE);
    }
    int count = Math.min(Math.max(b.getInt(H_DEVICE_COUNT), 0), MAX_DEVICES);
    ImmutableList.Builder<DeviceUsage> devices = ImmutableList.builder();
    for (int i = 0; i < count; i++) {
      int at = DEVICE_RECORD_OFFSET + i * DEVICE_RECORD_SIZE;
      devices.add(
          new DeviceUsage(
              i,
              cString(b, at + D_UUID, UUID_LEN),
              b.getLong(at + D_MEM_LIMIT),
              b.getLong(at + D_MEM_USED),
              b.getLong(at + D_MEM_PEAK),
              b.getLong(at + D_MEM_TOTAL),
              b.getInt(at + D_SM_LIMIT),
              b.getInt(at + D_SM_UTIL),
              b.getLong(at + D_BUSY_NS),
              b.getLong(at + D_LAUNCHES),
              b.getLong(at + D_THROTTLED_NS)));
    }
    return new Snapshot(
        Short.toUnsignedInt(b.getShort(H_VERSION_MINOR)),
        b.getInt(H_PRIORITY),
        b.getLong(H_LAST_KERNEL_TIME),
        devices.build());
  }

  private static String cString(ByteBuffer b, int at, int max) {
    int len = 0;
    while (len < max && b.get(at + len) != 0) {
      len++;
    }
    byte[] bytes = new byte[len];
    b.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
