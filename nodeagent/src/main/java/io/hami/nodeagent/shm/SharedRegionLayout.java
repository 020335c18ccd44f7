package io.hami.nodeagent.shm;

/**
 * Offsets of libvgpu's shared region, layout 1.x, as {@code libvgpu/include/vgpu/shared_region.h}
 * defines them. {@code SharedRegionAbiTest} compiles that header and checks every value here.
 */
public final class SharedRegionLayout {
  private SharedRegionLayout() {}

  public static final int MAGIC = 0x55504756;
  public static final int VERSION_MAJOR = 1;
  public static final int MAX_DEVICES = 16;
  public static final int UUID_LEN = 96;
  public static final int HEADER_SIZE = 8192;
  public static final int DEVICE_RECORD_OFFSET = 256;
  public static final int DEVICE_RECORD_SIZE = 256;
  public static final int SLOT_SIZE = 512;
  public static final int MAX_SLOTS = 1024;
  public static final long REGION_SIZE = HEADER_SIZE + (long) MAX_SLOTS * SLOT_SIZE;

  // Header.
  public static final int H_MAGIC = 0;
  public static final int H_VERSION_MAJOR = 4;
  public static final int H_VERSION_MINOR = 6;
  public static final int H_REGION_SIZE = 8;
  public static final int H_HEADER_SIZE = 16;
  public static final int H_DEVICE_RECORD_SIZE = 20;
  public static final int H_SLOT_SIZE = 24;
  public static final int H_SLOT_COUNT = 28;
  public static final int H_DEVICE_COUNT = 32;
  public static final int H_FLAGS = 36;
  public static final int H_PRIORITY = 40;
  public static final int H_UTILIZATION_SWITCH = 44;
  public static final int H_RECENT_KERNEL = 48;
  public static final int H_CORE_POLICY = 52;
  public static final int H_LAST_KERNEL_TIME = 56;
  public static final int H_CREATOR_PID = 64;
  public static final int H_CREATED_AT = 72;

  // Device record, relative to its start.
  public static final int D_UUID = 0;
  public static final int D_MEM_LIMIT = 96;
  public static final int D_MEM_USED = 104;
  public static final int D_MEM_TOTAL = 112;
  public static final int D_SM_LIMIT = 120;
  public static final int D_SM_UTIL = 124;
  public static final int D_TOKENS = 128;
  public static final int D_BUSY_NS = 160;
  public static final int D_LAUNCHES = 168;
  public static final int D_THROTTLED_NS = 176;
  public static final int D_MEM_PEAK = 184;

  // Slot, relative to its start.
  public static final int S_PID = 0;
  public static final int S_HOST_PID = 4;
  public static final int S_START_TIME = 8;
  public static final int S_STATUS = 16;
  public static final int S_GENERATION = 20;
  public static final int S_USED = 32;
  public static final int S_CONTEXT = 160;
}
