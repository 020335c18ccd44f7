package io.hami.nodeagent.shm;

import static io.hami.nodeagent.shm.HamiCoreRegionLayout.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins {@link HamiCoreRegionLayout} to HAMi-core's shared region 1.2: a C replica of the struct as
 * ../shared/spec/libvgpu.md §3.2 describes it prints every offset the agent uses, and an image with
 * known values, built by hand at those offsets, reads back as the monitor should see it.
 */
class HamiCoreRegionAbiTest {
  @TempDir Path tmp;

  /** The struct of HAMi-core 1.2 on x86-64 glibc, field by field as the spec lists it. */
  static final String PROGRAM =
      """
      #include <semaphore.h>
      #include <stddef.h>
      #include <stdint.h>
      #include <stdio.h>
      typedef struct {
        uint64_t context_size, module_size, data_size, offset, total, unused[3];
      } mem_record;
      typedef struct { uint64_t dec_util, enc_util, sm_util, unused[3]; } util_record;
      typedef struct {
        int32_t pid;
        int32_t hostpid;
        mem_record used[16];
        uint64_t monitorused[16];
        util_record device_util[16];
        int32_t status;
        uint64_t seqlock;
        uint64_t unused[2];
      } slot;
      typedef struct {
        int32_t initialized_flag;
        uint32_t major_version;
        uint32_t minor_version;
        int32_t sm_init_flag;
        size_t owner_pid;
        sem_t sem;
        uint64_t device_num;
        char uuids[16][96];
        uint64_t limit[16];
        uint64_t sm_limit[16];
        slot procs[1024];
        int proc_num;
        int utilization_switch;
        int recent_kernel;
        int priority;
        uint64_t last_kernel_time;
        sem_t sem_postinit;
      } region;
      #define P(name, expr) printf("%s=%ld\\n", name, (long) (expr))
      int main(void) {
        P("MAGIC", 19920718);
        P("VERSION_MAJOR", 1);
        P("VERSION_MINOR", 2);
        P("MAX_DEVICES", 16);
        P("UUID_LEN", sizeof(((region *) 0)->uuids[0]));
        P("MAX_PROCS", sizeof(((region *) 0)->procs) / sizeof(slot));
        P("SLOT_SIZE", sizeof(slot));
        P("REGION_SIZE", sizeof(region));
        P("MIN_REGION_SIZE", offsetof(region, sem_postinit));
        P("H_MAGIC", offsetof(region, initialized_flag));
        P("H_VERSION_MAJOR", offsetof(region, major_version));
        P("H_VERSION_MINOR", offsetof(region, minor_version));
        P("H_OWNER_PID", offsetof(region, owner_pid));
        P("H_DEVICE_NUM", offsetof(region, device_num));
        P("H_UUIDS", offsetof(region, uuids));
        P("H_LIMIT", offsetof(region, limit));
        P("H_SM_LIMIT", offsetof(region, sm_limit));
        P("H_PROCS", offsetof(region, procs));
        P("H_PROC_NUM", offsetof(region, proc_num));
        P("H_UTILIZATION_SWITCH", offsetof(region, utilization_switch));
        P("H_RECENT_KERNEL", offsetof(region, recent_kernel));
        P("H_PRIORITY", offsetof(region, priority));
        P("H_LAST_KERNEL_TIME", offsetof(region, last_kernel_time));
        P("H_SEM_POSTINIT", offsetof(region, sem_postinit));
        P("S_PID", offsetof(slot, pid));
        P("S_HOST_PID", offsetof(slot, hostpid));
        P("S_USED", offsetof(slot, used));
        P("S_MONITOR_USED", offsetof(slot, monitorused));
        P("S_DEVICE_UTIL", offsetof(slot, device_util));
        P("S_STATUS", offsetof(slot, status));
        P("S_SEQLOCK", offsetof(slot, seqlock));
        P("USED_RECORD_SIZE", sizeof(mem_record));
        P("U_TOTAL", offsetof(mem_record, total));
        P("UTIL_RECORD_SIZE", sizeof(util_record));
        P("UT_SM_UTIL", offsetof(util_record, sm_util));
        return 0;
      }
      """;

  @Test
  void layoutMatchesTheStructOfVersion12() throws Exception {
    Path src = tmp.resolve("hami_abi.c");
    Path exe = tmp.resolve("hami_abi");
    Files.writeString(src, PROGRAM);
    run("gcc", "-std=c11", "-Wall", "-Werror", "-o", exe.toString(), src.toString());
    Map<String, Long> c = new LinkedHashMap<>();
    for (String line : run(exe.toString())) {
      String[] kv = line.split("=", 2);
      c.put(kv[0], Long.parseLong(kv[1]));
    }

    Map<String, Long> java = new LinkedHashMap<>();
    for (Field f : HamiCoreRegionLayout.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())) {
        java.put(f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    assertThat(java).containsExactlyInAnyOrderEntriesOf(c);
    assertThat(REGION_SIZE).as("spec §3.2: 2,008,952 bytes").isEqualTo(2_008_952);
  }

  /** HAMi-core 1.2 with two devices and three slots: one exited (pid 0), one past proc_num. */
  static ByteBuffer image(int size) {
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(H_MAGIC, MAGIC).putInt(H_VERSION_MAJOR, 1).putInt(H_VERSION_MINOR, 2);
    b.putLong(H_DEVICE_NUM, 2);
    b.put(H_UUIDS, "GPU-h0".getBytes(StandardCharsets.UTF_8));
    b.put(H_UUIDS + UUID_LEN, "GPU-h1".getBytes(StandardCharsets.UTF_8));
    b.putLong(H_LIMIT, 4096L << 20).putLong(H_LIMIT + 8, 2048L << 20);
    b.putLong(H_SM_LIMIT, 30).putLong(H_SM_LIMIT + 8, 0);
    b.putInt(H_PROC_NUM, 3);
    b.putInt(H_UTILIZATION_SWITCH, 1).putInt(H_RECENT_KERNEL, -1).putInt(H_PRIORITY, 0);
    b.putLong(H_LAST_KERNEL_TIME, 1_764_800_000L);
    slot(b, 0, 101, new long[] {100L << 20, 5L << 20}, new long[] {20, 1});
    slot(b, 1, 0, new long[] {999L << 20, 999L << 20}, new long[] {50, 50});
    slot(b, 2, 103, new long[] {300L << 20, 0}, new long[] {15, 2});
    slot(b, 3, 104, new long[] {777L << 20, 777L << 20}, new long[] {70, 70});
    return b;
  }

  private static void slot(ByteBuffer b, int k, int pid, long[] total, long[] smUtil) {
    int at = H_PROCS + k * SLOT_SIZE;
    b.putInt(at + S_PID, pid).putInt(at + S_HOST_PID, pid + 5000).putInt(at + S_STATUS, 1);
    for (int i = 0; i < total.length; i++) {
      b.putLong(at + S_USED + i * USED_RECORD_SIZE + U_TOTAL, total[i]);
      // The other usage counters are not what the limit is checked against.
      b.putLong(at + S_USED + i * USED_RECORD_SIZE, 1L << 40);
      b.putLong(at + S_MONITOR_USED + i * 8, 1L << 41);
      b.putLong(at + S_DEVICE_UTIL + i * UTIL_RECORD_SIZE + UT_SM_UTIL, smUtil[i]);
    }
  }

  static final SharedRegion.Snapshot WANT =
      new SharedRegion.Snapshot(
          RegionLayout.HAMI_CORE,
          1,
          2,
          0,
          1,
          -1,
          1_764_800_000L,
          ImmutableList.of(
              new SharedRegion.DeviceUsage(
                  0, "GPU-h0", 4096L << 20, 400L << 20, 0, 0, 30, 35, 0, 0, 0),
              new SharedRegion.DeviceUsage(
                  1, "GPU-h1", 2048L << 20, 5L << 20, 0, 0, 0, 3, 0, 0, 0)));

  @Test
  void readsLimitsAndSumsTheLiveSlots() throws Exception {
    Path file = tmp.resolve("hami.cache");
    // HAMi-core grows its file one byte past the struct.
    Files.write(file, image(REGION_SIZE + 1).array());

    assertThat(SharedRegion.read(file)).isEqualTo(WANT);
  }

  @Test
  void readsAFileWrittenBeforeSemPostinit() throws Exception {
    Path file = tmp.resolve("old.cache");
    Files.write(file, image(MIN_REGION_SIZE).array());

    assertThat(SharedRegion.read(file)).isEqualTo(WANT);
  }

  @Test
  void refusesOtherVersionsAndShortFiles() throws Exception {
    ByteBuffer v13 = image(REGION_SIZE).putInt(H_VERSION_MINOR, 3);
    assertThatThrownBy(() -> SharedRegion.parse("v13", v13))
        .hasMessage(
            "v13: HAMi-core region version 1.3 (magic 19920718, 2008952 bytes), this agent reads"
                + " 1.2");

    Path shortFile = tmp.resolve("short.cache");
    Files.write(shortFile, Arrays.copyOf(image(REGION_SIZE).array(), 4096));
    assertThatThrownBy(() -> SharedRegion.read(shortFile))
        .hasMessage(shortFile + ": 4096 bytes, a HAMi-core region 1.2 has at least 2008920");
  }

  private static List<String> run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + "\n" + out).isZero();
    return new ArrayList<>(out.lines().toList());
  }
}
