package io.hami.nodeagent.monitor;

import static io.hami.nodeagent.shm.SharedRegionLayout.DEVICE_RECORD_OFFSET;
import static io.hami.nodeagent.shm.SharedRegionLayout.DEVICE_RECORD_SIZE;
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
import static io.hami.nodeagent.shm.SharedRegionLayout.REGION_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.SLOT_SIZE;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_CONTEXT;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_GENERATION;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_HOST_PID;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_PID;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_START_TIME;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_STATUS;
import static io.hami.nodeagent.shm.SharedRegionLayout.S_USED;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes libvgpu regions (layout 1.0) as a container's processes would leave them, under {@code
 * <hook>/vgpu/containers/<podUid>_<container>/<name>.cache}, and reads the monitor's feedback back.
 */
final class RegionFile {
  private final String podUid;
  private final String container;
  private final List<String> uuids = new ArrayList<>();
  private final List<long[]> slots = new ArrayList<>();
  private int priority = 1;
  private int policy;
  private long lastKernelTime;

  private RegionFile(String podUid, String container) {
    this.podUid = podUid;
    this.container = container;
  }

  static RegionFile of(String podUid, String container) {
    return new RegionFile(podUid, container);
  }

  RegionFile gpus(String... v) {
    uuids.addAll(List.of(v));
    return this;
  }

  RegionFile priority(int v) {
    priority = v;
    return this;
  }

  RegionFile policy(int v) {
    policy = v;
    return this;
  }

  RegionFile lastKernel(long epochSeconds) {
    lastKernelTime = epochSeconds;
    return this;
  }

  /** A live process: container pid and host pid (0 unknown), start time unknown. */
  RegionFile process(int pid, int hostPid) {
    return process(pid, hostPid, 0);
  }

  /** A process with its start time (clock ticks since boot, 0 unknown). */
  RegionFile process(int pid, int hostPid, long startTime) {
    slots.add(new long[] {pid, hostPid, startTime});
    return this;
  }

  Path write(Path hook) {
    ByteBuffer b = ByteBuffer.allocate((int) REGION_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(H_MAGIC, MAGIC);
    b.putShort(H_VERSION_MAJOR, (short) 1);
    b.putLong(H_REGION_SIZE, REGION_SIZE);
    b.putInt(H_DEVICE_COUNT, uuids.size());
    b.putInt(H_PRIORITY, priority);
    b.putInt(H_UTILIZATION_SWITCH, 1);
    b.putInt(H_RECENT_KERNEL, 0);
    b.putInt(H_CORE_POLICY, policy);
    b.putLong(H_LAST_KERNEL_TIME, lastKernelTime);
    for (int i = 0; i < uuids.size(); i++) {
      b.put(
          DEVICE_RECORD_OFFSET + i * DEVICE_RECORD_SIZE,
          uuids.get(i).getBytes(StandardCharsets.UTF_8));
    }
    for (int k = 0; k < slots.size(); k++) {
      int at = HEADER_SIZE + k * SLOT_SIZE;
      long[] s = slots.get(k);
      b.putInt(at + S_PID, (int) s[0]);
      b.putInt(at + S_HOST_PID, (int) s[1]);
      b.putLong(at + S_START_TIME, s[2]);
      b.putInt(at + S_STATUS, 1);
      b.putInt(at + S_GENERATION, 3);
      // Charges, so that a test can see the monitor leaves them alone.
      for (int i = 0; i < uuids.size(); i++) {
        b.putLong(at + S_USED + i * 8, (k + 1L) << 20);
        b.putLong(at + S_CONTEXT + i * 8, 1L << 19);
      }
    }
    Path file = dir(hook).resolve("c.cache");
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, b.array());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  Path dir(Path hook) {
    return hook.resolve("vgpu/containers").resolve(podUid + "_" + container);
  }

  static int readInt(Path file, int offset) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(b, offset);
      return b.getInt(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void writeInt(Path file, int offset, int value) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), offset);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes of the file's slots (everything after the header). */
  static byte[] slotBytes(Path file) {
    try {
      byte[] all = Files.readAllBytes(file);
      return Arrays.copyOfRange(all, HEADER_SIZE, all.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void writeLong(Path file, int offset, long value) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
      ch.write(b, offset);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int utilizationSwitch(Path file) {
    return readInt(file, H_UTILIZATION_SWITCH);
  }

  static int recentKernel(Path file) {
    return readInt(file, H_RECENT_KERNEL);
  }

  static void lastKernel(Path file, long epochSeconds) {
    writeLong(file, H_LAST_KERNEL_TIME, epochSeconds);
  }
}
