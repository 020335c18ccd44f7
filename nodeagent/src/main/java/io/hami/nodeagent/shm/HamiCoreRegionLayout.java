package io.hami.nodeagent.shm;

/**
 * Offsets of HAMi-core's shared region, version 1.2 (x86-64, glibc), as ../shared/spec/libvgpu.md
 * §3.2 describes it: a fixed header with per-device limits, 1024 process slots of 1960 bytes, and a
 * tail with the monitor's fields. Integers are little-endian; the version words are u32, unlike
 * ours. {@code HamiCoreRegionAbiTest} compiles a replica of the struct and checks every value here.
 */
public final class HamiCoreRegionLayout {
  private HamiCoreRegionLayout() {}

  public static final int MAGIC = 19920718;
  public static final int VERSION_MAJOR = 1;
  public static final int VERSION_MINOR = 2;
  public static final int MAX_DEVICES = 16;
  public static final int UUID_LEN = 96;
  public static final int MAX_PROCS = 1024;
  public static final int SLOT_SIZE = 1960;

  /** The struct's size since {@code sem_postinit} was appended. */
  public static final int REGION_SIZE = 2_008_952;

  /** The size of files written before {@code sem_postinit}: everything the agent reads. */
  public static final int MIN_REGION_SIZE = 2_008_920;

  // Header.
  public static final int H_MAGIC = 0;
  public static final int H_VERSION_MAJOR = 4;
  public static final int H_VERSION_MINOR = 8;
  public static final int H_OWNER_PID = 16;
  public static final int H_DEVICE_NUM = 56;
  public static final int H_UUIDS = 64;
  public static final int H_LIMIT = 1600;
  public static final int H_SM_LIMIT = 1728;
  public static final int H_PROCS = 1856;
  public static final int H_PROC_NUM = 2_008_896;
  public static final int H_UTILIZATION_SWITCH = 2_008_900;
  public static final int H_RECENT_KERNEL = 2_008_904;
  public static final int H_PRIORITY = 2_008_908;
  public static final int H_LAST_KERNEL_TIME = 2_008_912;
  public static final int H_SEM_POSTINIT = 2_008_920;

  // Process slot, relative to its start.
  public static final int S_PID = 0;
  public static final int S_HOST_PID = 4;
  public static final int S_USED = 8;
  public static final int S_MONITOR_USED = 1032;
  public static final int S_DEVICE_UTIL = 1160;
  public static final int S_STATUS = 1928;
  public static final int S_SEQLOCK = 1936;

  /** One {@code used[i]} record: context, module, data, offset, total, padding. */
  public static final int USED_RECORD_SIZE = 64;

  public static final int U_TOTAL = 32;

  /** One {@code device_util[i]} record: dec, enc, sm utilisation, padding. */
  public static final int UTIL_RECORD_SIZE = 48;

  public static final int UT_SM_UTIL = 16;
}
