package io.hami.nodeagent.monitor;

import static io.hami.nodeagent.shm.SharedRegionLayout.DEVICE_RECORD_OFFSET;
import static io.hami.nodeagent.shm.SharedRegionLayout.DEVICE_RECORD_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.D_UUID;
import static io.hami.nodeagent.shm.SharedRegionLayout.HEADER_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_CORE_POLICY;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_DEVICE_COUNT;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_LAST_KERNEL_TIME;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_MAGIC;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_PRIORITY;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_RECENT_KERNEL;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_REGION_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_UTILIZATION_SWITCH;
import static io.hami.nodeagent.shm.SharedRegionLayout.H_VERSION_MAJOR;
import static io.hami.nodeagent.shm.SharedRegionLayout.MAGIC;
import static io.hami.nodeagent.shm.SharedRegionLayout.MAX_DEVICES;
import static io.hami.nodeagent.shm.SharedRegionLayout.MAX_SLOTS;
import static io.hami.nodeagent.shm.SharedRegionLayout.REGION_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.SLOT_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_GENERATION;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_HOST_PID;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_PID;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_START_TIME;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_STATUS;
import static io.hami.nodeagent.shm.SharedRegionLayout.UUID_LEN;
import static io.hami.nodeagent.shm.SharedRegionLayout.VERSION_MAJOR;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One container's libvgpu region (layout 1.x), mapped read-write for the monitor's feedback. Reads
 * are samples of fields the container's processes change concurrently. Writes touch only the two
 * monitor-writable header fields, {@code utilization_switch} and {@code recent_kernel}, as plain
 * aligned little-endian i32 stores, and reclaim a dead process's slot by a compare-and-swap of its
 * {@code pid} to 0 (libvgpu's rule: the monitor cannot take the lock, so it touches nothing else);
 * never the lock or the accounting.
 *
 * <p>The file is writable by the container, which may truncate it under the mapping: an access past
 * the end then fails with an {@link InternalError} (the JVM's answer to {@code SIGBUS}), which
 * callers treat as a region gone bad for this period.
 */
final class RegionFeedback {
  // Aligned i32 access to the mapping, atomic as libvgpu's __atomic builtins on the same word.
  private static final VarHandle INT =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final Path file;
  private final MappedByteBuffer map;

  private RegionFeedback(Path file, MappedByteBuffer map) {
    this.file = file;
    this.map = map;
  }

  /**
   * Maps {@code file} when it holds an initialised region of our layout; empty for anything else
   * (still empty because no CUDA process ran yet, HAMi-core's layout, another major, a short or
   * unreadable file), which the monitor leaves alone.
   */
  static Optional<RegionFeedback> open(Path file) throws IOException {
    // Only the regular file itself: a link a tenant planted would point the writes elsewhere.
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try (FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      if (ch.size() < REGION_SIZE) {
        return Optional.empty();
      }
      MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, REGION_SIZE);
      map.order(ByteOrder.LITTLE_ENDIAN);
      if (map.getInt(H_MAGIC) != MAGIC
          || Short.toUnsignedInt(map.getShort(H_VERSION_MAJOR)) != VERSION_MAJOR
          || map.getLong(H_REGION_SIZE) < REGION_SIZE) {
        return Optional.empty();
      }
      return Optional.of(new RegionFeedback(file, map));
    }
  }

  /** Whether the mapping still holds a region of our layout (the container may rewrite it). */
  boolean stillValid() {
    return map.getInt(H_MAGIC) == MAGIC
        && Short.toUnsignedInt(map.getShort(H_VERSION_MAJOR)) == VERSION_MAJOR
        && map.getLong(H_REGION_SIZE) >= REGION_SIZE;
  }

  Path file() {
    return file;
  }

  /** {@code CUDA_TASK_PRIORITY} of the region's creator: 0 is high, larger is lower. */
  int priority() {
    return map.getInt(H_PRIORITY);
  }

  /** The creator's policy: 0 default, 1 force, 2 disable (informational; libvgpu decides). */
  int corePolicy() {
    return map.getInt(H_CORE_POLICY);
  }

  /** Epoch seconds of the container's latest launch, 0 when none. */
  long lastKernelTime() {
    return map.getLong(H_LAST_KERNEL_TIME);
  }

  int utilizationSwitch() {
    return map.getInt(H_UTILIZATION_SWITCH);
  }

  int recentKernel() {
    return map.getInt(H_RECENT_KERNEL);
  }

  /** The UUIDs of the device records in use, in record order. */
  ImmutableList<String> uuids() {
    int count = Math.min(Math.max(map.getInt(H_DEVICE_COUNT), 0), MAX_DEVICES);
    ImmutableList.Builder<String> out = ImmutableList.builder();
    for (int i = 0; i < count; i++) {
      String uuid = cString(DEVICE_RECORD_OFFSET + i * DEVICE_RECORD_SIZE + D_UUID, UUID_LEN);
      if (!uuid.isEmpty()) {
        out.add(uuid);
      }
    }
    return out.build();
  }

  /** The claimed slots: container pid, host pid (0 unknown), start time, status, generation. */
  ImmutableList<Slot> slots() {
    ImmutableList.Builder<Slot> out = ImmutableList.builder();
    for (int k = 0; k < MAX_SLOTS; k++) {
      int at = HEADER_SIZE + k * SLOT_SIZE;
      int pid = (int) INT.getAcquire(map, at + S_PID);
      if (pid != 0) {
        out.add(
            new Slot(
                k,
                pid,
                map.getInt(at + S_HOST_PID),
                map.getLong(at + S_START_TIME),
                map.getInt(at + S_STATUS),
                map.getInt(at + S_GENERATION)));
      }
    }
    return out.build();
  }

  /**
   * Frees {@code slot}, read earlier and judged dead, by a compare-and-swap of its pid to 0;
   * nothing else in the slot changes (libvgpu clears a free slot's counters when it claims it).
   * Returns false, touching nothing, when the slot no longer holds what was judged: another pid,
   * host pid, start time or claim generation (the slot was freed and claimed again meanwhile).
   */
  boolean reclaim(Slot slot) {
    int at = HEADER_SIZE + slot.index() * SLOT_SIZE;
    if (map.getInt(at + S_HOST_PID) != slot.hostPid()
        || map.getLong(at + S_START_TIME) != slot.startTime()
        || map.getInt(at + S_GENERATION) != slot.generation()) {
      return false;
    }
    return INT.compareAndSet(map, at + S_PID, slot.pid(), 0);
  }

  /** Writes {@code utilization_switch} when it differs; returns whether it wrote. */
  boolean writeUtilizationSwitch(int value) {
    if (map.getInt(H_UTILIZATION_SWITCH) == value) {
      return false;
    }
    map.putInt(H_UTILIZATION_SWITCH, value);
    return true;
  }

  /** Writes {@code recent_kernel} when it differs; returns whether it wrote. */
  boolean writeRecentKernel(int value) {
    if (map.getInt(H_RECENT_KERNEL) == value) {
      return false;
    }
    map.putInt(H_RECENT_KERNEL, value);
    return true;
  }

  private String cString(int at, int max) {
    int len = 0;
    while (len < max && map.get(at + len) != 0) {
      len++;
    }
    byte[] bytes = new byte[len];
    map.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A claimed slot of one process, as read. */
  record Slot(int index, int pid, int hostPid, long startTime, int status, int generation) {}
}
