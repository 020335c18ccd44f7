package io.hami.nodeagent.shm;

import static io.hami.nodeagent.shm.HamiCoreRegionLayout.*;

import com.google.common.collect.ImmutableList;
import java.nio.ByteBuffer;

/**
 * Reads HAMi-core's region 1.2 into the agent's {@link SharedRegion.Snapshot}, as HAMi's own
 * monitor does: limits from the header, usage and utilisation summed over the first {@code
 * proc_num} process slots that hold a pid.
 */
final class HamiCoreRegion {
  private HamiCoreRegion() {}

  /** Parses a little-endian image of at least {@link HamiCoreRegionLayout#MIN_REGION_SIZE}. */
  static SharedRegion.Snapshot parse(ByteBuffer b) {
    int count = (int) Math.min(Math.max(b.getLong(H_DEVICE_NUM), 0), MAX_DEVICES);
    int procs = Math.min(Math.max(b.getInt(H_PROC_NUM), 0), MAX_PROCS);
    long[] used = new long[count];
    long[] smUtil = new long[count];
    for (int k = 0; k < procs; k++) {
      int slot = H_PROCS + k * SLOT_SIZE;
      if (b.getInt(slot + S_PID) == 0) {
        continue;
      }
      for (int i = 0; i < count; i++) {
        used[i] += b.getLong(slot + S_USED + i * USED_RECORD_SIZE + U_TOTAL);
        smUtil[i] += b.getLong(slot + S_DEVICE_UTIL + i * UTIL_RECORD_SIZE + UT_SM_UTIL);
      }
    }
    ImmutableList.Builder<SharedRegion.DeviceUsage> devices = ImmutableList.builder();
    for (int i = 0; i < count; i++) {
      devices.add(
          new SharedRegion.DeviceUsage(
              i,
              SharedRegion.cString(b, H_UUIDS + i * UUID_LEN, UUID_LEN),
              b.getLong(H_LIMIT + i * 8),
              used[i],
              0,
              0,
              percent(b.getLong(H_SM_LIMIT + i * 8)),
              percent(smUtil[i]),
              0,
              0,
              0));
    }
    return new SharedRegion.Snapshot(
        RegionLayout.HAMI_CORE,
        b.getInt(H_VERSION_MAJOR),
        b.getInt(H_VERSION_MINOR),
        b.getInt(H_PRIORITY),
        b.getInt(H_UTILIZATION_SWITCH),
        b.getInt(H_RECENT_KERNEL),
        b.getLong(H_LAST_KERNEL_TIME),
        devices.build());
  }

  /** A u64 percentage as an int, 0..100 (a garbage value cannot overflow the gauges). */
  private static int percent(long v) {
    return (int) Math.min(Math.max(v, 0), 100);
  }
}
