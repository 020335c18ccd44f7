package io.hami.nodeagent.shm;

import io.hami.nodeagent.shm.SharedRegion.RegionException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The shared-region layouts the agent reads, told apart by the magic word at offset 0, then checked
 * by version and file size: libvgpu's own (layout 1.x, {@link SharedRegionLayout}) and HAMi-core's
 * (1.2, {@link HamiCoreRegionLayout}), so that containers running either library are visible.
 */
public enum RegionLayout {
  /**
   * libvgpu's layout 1.x: one header with device records, then the process slots whose {@code
   * used[]} sum to the memory in use.
   */
  LIBVGPU {
    @Override
    int bytesToRead(long fileSize) {
      return (int) SharedRegionLayout.REGION_SIZE;
    }

    @Override
    int bytesNeeded() {
      return (int) SharedRegionLayout.REGION_SIZE;
    }
  },
  /** HAMi-core's 1.2: limits in the header, usage summed over the process slots. */
  HAMI_CORE {
    @Override
    int bytesToRead(long fileSize) {
      return (int) Math.min(fileSize, HamiCoreRegionLayout.REGION_SIZE);
    }

    @Override
    int bytesNeeded() {
      return HamiCoreRegionLayout.MIN_REGION_SIZE;
    }
  };

  /** The bytes from offset 0 that {@link SharedRegion} parses for this layout. */
  abstract int bytesToRead(long fileSize);

  /** The fewest bytes from offset 0 that hold every field the agent reads. */
  abstract int bytesNeeded();

  /** The bytes {@link #select} needs: magic and both version words of either layout. */
  static final int PROBE_SIZE = 16;

  /**
   * The layout of a region whose first bytes are {@code head} (little-endian, up to {@link
   * #PROBE_SIZE}) and whose file has {@code fileSize} bytes.
   *
   * @throws RegionException naming magic, version and size when no layout fits, or marked {@link
   *     RegionException#uninitialised()} for a file its library has not set up yet
   */
  static RegionLayout select(String name, ByteBuffer head, long fileSize) throws RegionException {
    ByteBuffer b = head.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (fileSize == 0 || b.limit() < 4) {
      throw RegionException.uninitialised(name + ": " + fileSize + " bytes, not set up yet");
    }
    int magic = b.getInt(0);
    if (magic == 0) {
      // Both libraries write the magic last, once the rest is in place.
      throw RegionException.uninitialised(
          name + ": no magic yet (" + fileSize + " bytes), not set up yet");
    }
    if (b.limit() < PROBE_SIZE) {
      throw new RegionException(
          name + ": unknown region layout (magic " + hex(magic) + ", " + fileSize + " bytes)");
    }
    if (magic == SharedRegionLayout.MAGIC) {
      int major = Short.toUnsignedInt(b.getShort(SharedRegionLayout.H_VERSION_MAJOR));
      int minor = Short.toUnsignedInt(b.getShort(SharedRegionLayout.H_VERSION_MINOR));
      if (major != SharedRegionLayout.VERSION_MAJOR) {
        throw new RegionException(
            name
                + ": libvgpu region layout "
                + major
                + "."
                + minor
                + " (magic "
                + hex(magic)
                + ", "
                + fileSize
                + " bytes), this agent reads "
                + SharedRegionLayout.VERSION_MAJOR
                + ".x");
      }
      if (fileSize < SharedRegionLayout.REGION_SIZE) {
        throw new RegionException(
            name
                + ": "
                + fileSize
                + " bytes, a libvgpu region "
                + major
                + "."
                + minor
                + " has "
                + SharedRegionLayout.REGION_SIZE);
      }
      return LIBVGPU;
    }
    if (magic == HamiCoreRegionLayout.MAGIC) {
      long major = Integer.toUnsignedLong(b.getInt(HamiCoreRegionLayout.H_VERSION_MAJOR));
      long minor = Integer.toUnsignedLong(b.getInt(HamiCoreRegionLayout.H_VERSION_MINOR));
      if (major != HamiCoreRegionLayout.VERSION_MAJOR
          || minor != HamiCoreRegionLayout.VERSION_MINOR) {
        throw new RegionException(
            name
                + ": HAMi-core region version "
                + major
                + "."
                + minor
                + " (magic "
                + magic
                + ", "
                + fileSize
                + " bytes), this agent reads "
                + HamiCoreRegionLayout.VERSION_MAJOR
                + "."
                + HamiCoreRegionLayout.VERSION_MINOR);
      }
      if (fileSize < HamiCoreRegionLayout.MIN_REGION_SIZE) {
        throw new RegionException(
            name
                + ": "
                + fileSize
                + " bytes, a HAMi-core region 1.2 has at least "
                + HamiCoreRegionLayout.MIN_REGION_SIZE);
      }
      return HAMI_CORE;
    }
    throw new RegionException(
        name
            + ": unknown region layout (magic "
            + hex(magic)
            + ", version words "
            + Integer.toUnsignedString(b.getInt(4))
            + "."
            + Integer.toUnsignedString(b.getInt(8))
            + ", "
            + fileSize
            + " bytes)");
  }

  private static String hex(int v) {
    return "0x" + Integer.toHexString(v);
  }
}
