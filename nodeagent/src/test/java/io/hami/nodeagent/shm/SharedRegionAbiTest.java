package io.hami.nodeagent.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins {@link SharedRegionLayout} to libvgpu's ABI header: a C program built against {@code
 * libvgpu/include/vgpu/shared_region.h} prints every offset the agent uses and writes a region with
 * known values, which {@link SharedRegion} must read back.
 */
class SharedRegionAbiTest {
  static final Path HEADER_DIR = Path.of("..", "libvgpu", "include").toAbsolutePath().normalize();

  @TempDir Path tmp;

  static final String PROGRAM =
      """
      #include <stddef.h>
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include "vgpu/shared_region.h"
      #define P(name, expr) printf("%s=%ld\\n", name, (long) (expr))
      int main(int argc, char **argv) {
        P("MAGIC", VGPU_REGION_MAGIC);
        P("VERSION_MAJOR", VGPU_REGION_VERSION_MAJOR);
        P("MAX_DEVICES", VGPU_MAX_DEVICES);
        P("UUID_LEN", VGPU_UUID_LEN);
        P("HEADER_SIZE", VGPU_HEADER_SIZE);
        P("DEVICE_RECORD_OFFSET", offsetof(vgpu_region, devices));
        P("DEVICE_RECORD_SIZE", sizeof(vgpu_device_record));
        P("SLOT_SIZE", sizeof(vgpu_slot));
        P("MAX_SLOTS", VGPU_MAX_SLOTS);
        P("REGION_SIZE", sizeof(vgpu_region));
        P("H_MAGIC", offsetof(vgpu_region, magic));
        P("H_VERSION_MAJOR", offsetof(vgpu_region, version_major));
        P("H_VERSION_MINOR", offsetof(vgpu_region, version_minor));
        P("H_REGION_SIZE", offsetof(vgpu_region, region_size));
        P("H_HEADER_SIZE", offsetof(vgpu_region, header_size));
        P("H_DEVICE_RECORD_SIZE", offsetof(vgpu_region, device_record_size));
        P("H_SLOT_SIZE", offsetof(vgpu_region, slot_size));
        P("H_SLOT_COUNT", offsetof(vgpu_region, slot_count));
        P("H_DEVICE_COUNT", offsetof(vgpu_region, device_count));
        P("H_FLAGS", offsetof(vgpu_region, flags));
        P("H_PRIORITY", offsetof(vgpu_region, priority));
        P("H_UTILIZATION_SWITCH", offsetof(vgpu_region, utilization_switch));
        P("H_RECENT_KERNEL", offsetof(vgpu_region, recent_kernel));
        P("H_CORE_POLICY", offsetof(vgpu_region, core_policy));
        P("H_LAST_KERNEL_TIME", offsetof(vgpu_region, last_kernel_time));
        P("H_CREATOR_PID", offsetof(vgpu_region, creator_pid));
        P("H_CREATED_AT", offsetof(vgpu_region, created_at));
        P("D_UUID", offsetof(vgpu_device_record, uuid));
        P("D_MEM_LIMIT", offsetof(vgpu_device_record, mem_limit));
        P("D_MEM_USED", offsetof(vgpu_device_record, mem_used));
        P("D_MEM_TOTAL", offsetof(vgpu_device_record, mem_total));
        P("D_SM_LIMIT", offsetof(vgpu_device_record, sm_limit));
        P("D_SM_UTIL", offsetof(vgpu_device_record, sm_util));
        P("D_TOKENS", offsetof(vgpu_device_record, tokens));
        P("D_BUSY_NS", offsetof(vgpu_device_record, busy_ns));
        P("D_LAUNCHES", offsetof(vgpu_device_record, launches));
        P("D_THROTTLED_NS", offsetof(vgpu_device_record, throttled_ns));
        P("D_MEM_PEAK", offsetof(vgpu_device_record, mem_peak));
        P("S_PID", offsetof(vgpu_slot, pid));
        P("S_HOST_PID", offsetof(vgpu_slot, host_pid));
        P("S_START_TIME", offsetof(vgpu_slot, start_time));
        P("S_STATUS", offsetof(vgpu_slot, status));
        P("S_GENERATION", offsetof(vgpu_slot, generation));
        P("S_USED", offsetof(vgpu_slot, used));
        P("S_CONTEXT", offsetof(vgpu_slot, context));
        vgpu_region *r = calloc(1, sizeof(vgpu_region));
        r->magic = VGPU_REGION_MAGIC;
        r->version_major = VGPU_REGION_VERSION_MAJOR;
        r->version_minor = 3;
        r->region_size = sizeof(vgpu_region);
        r->device_count = 2;
        r->priority = 1;
        r->utilization_switch = 1;
        r->recent_kernel = -1;
        r->last_kernel_time = 1705054796;
        for (int i = 0; i < 2; i++) {
          vgpu_device_record *d = &r->devices[i];
          snprintf(d->uuid, sizeof(d->uuid), "GPU-%d", i);
          d->mem_limit = 3000ull << 20;
          d->mem_used = 1; /* stale: a reader without the lock sums the live slots */
          d->mem_total = 15360ull << 20;
          d->sm_limit = 50;
          d->sm_util = 42 + i;
          d->busy_ns = 7000000000ull;
          d->launches = 99;
          d->throttled_ns = 1500000000ull;
          d->mem_peak = 2000ull << 20;
        }
        r->slots[0].pid = 7;
        r->slots[0].used[0] = 600ull << 20;
        r->slots[0].used[1] = 601ull << 20;
        r->slots[3].pid = 9;
        r->slots[3].used[0] = 400ull << 20;
        r->slots[3].used[1] = 400ull << 20;
        r->slots[5].used[0] = 999ull << 20; /* freed: pid 0 */
        FILE *f = fopen(argv[1], "wb");
        if (f == NULL || fwrite(r, sizeof(vgpu_region), 1, f) != 1 || fclose(f) != 0) {
          return 1;
        }
        free(r);
        return 0;
      }
      """;

  @Test
  void layoutMatchesTheHeaderAndARegionWrittenInCReadsBack() throws Exception {
    Path src = tmp.resolve("abi.c");
    Path exe = tmp.resolve("abi");
    Path region = tmp.resolve("r.cache");
    Files.writeString(src, PROGRAM);
    run(
        "gcc",
        "-std=c11",
        "-Wall",
        "-Werror",
        "-I" + HEADER_DIR,
        "-o",
        exe.toString(),
        src.toString());
    Map<String, Long> c = new LinkedHashMap<>();
    for (String line : run(exe.toString(), region.toString())) {
      String[] kv = line.split("=", 2);
      c.put(kv[0], Long.parseLong(kv[1]));
    }

    Map<String, Long> java = new LinkedHashMap<>();
    for (Field f : SharedRegionLayout.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())) {
        java.put(f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    assertThat(java).containsExactlyInAnyOrderEntriesOf(c);

    SharedRegion.Snapshot s = SharedRegion.read(region);
    assertThat(s.layout()).isEqualTo(RegionLayout.LIBVGPU);
    assertThat(s.versionMajor()).isEqualTo(1);
    assertThat(s.versionMinor()).isEqualTo(3);
    assertThat(s.priority()).isEqualTo(1);
    assertThat(s.utilizationSwitch()).isEqualTo(1);
    assertThat(s.recentKernel()).isEqualTo(-1);
    assertThat(s.lastKernelTime()).isEqualTo(1705054796L);
    assertThat(s.devices())
        .containsExactly(
            new SharedRegion.DeviceUsage(
                0,
                "GPU-0",
                3000L << 20,
                1000L << 20,
                2000L << 20,
                15360L << 20,
                50,
                42,
                7_000_000_000L,
                99,
                1_500_000_000L),
            new SharedRegion.DeviceUsage(
                1,
                "GPU-1",
                3000L << 20,
                1001L << 20,
                2000L << 20,
                15360L << 20,
                50,
                43,
                7_000_000_000L,
                99,
                1_500_000_000L));
  }

  @Test
  void refusesWhatIsNotALayoutOneRegion() throws Exception {
    Path ours = tmp.resolve("short.cache");
    ByteBuffer head = ByteBuffer.allocate(100).order(ByteOrder.LITTLE_ENDIAN);
    head.putInt(SharedRegionLayout.H_MAGIC, SharedRegionLayout.MAGIC)
        .putShort(SharedRegionLayout.H_VERSION_MAJOR, (short) 1);
    Files.write(ours, head.array());
    assertThatThrownBy(() -> SharedRegion.read(ours))
        .hasMessage(ours + ": 100 bytes, a libvgpu region 1.0 has 532480");

    ByteBuffer b =
        ByteBuffer.allocate((int) SharedRegionLayout.REGION_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(SharedRegionLayout.H_MAGIC, SharedRegionLayout.MAGIC)
        .putShort(SharedRegionLayout.H_VERSION_MAJOR, (short) 2)
        .putShort(SharedRegionLayout.H_VERSION_MINOR, (short) 1);
    assertThatThrownBy(() -> SharedRegion.parse("v2", b))
        .isInstanceOfSatisfying(
            SharedRegion.RegionException.class, e -> assertThat(e.uninitialised()).isFalse())
        .hasMessage(
            "v2: libvgpu region layout 2.1 (magic 0x55504756, 532480 bytes), this agent reads 1.x");

    b.putInt(SharedRegionLayout.H_MAGIC, 0xdeadbeef);
    assertThatThrownBy(() -> SharedRegion.parse("odd", b))
        .hasMessage(
            "odd: unknown region layout (magic 0xdeadbeef, version words 65538.0, 532480 bytes)");
  }

  /** The agent creates regions empty; until the library sets one up it is skipped quietly. */
  @Test
  void emptyOrUnsetRegion_isUninitialised() throws Exception {
    Path empty = tmp.resolve("empty.cache");
    Files.write(empty, new byte[0]);
    Path zeros = tmp.resolve("zeros.cache");
    Files.write(zeros, new byte[4096]);

    for (Path p : List.of(empty, zeros)) {
      assertThatThrownBy(() -> SharedRegion.read(p))
          .isInstanceOfSatisfying(
              SharedRegion.RegionException.class, e -> assertThat(e.uninitialised()).isTrue())
          .hasMessageContaining("not set up yet");
    }
  }

  private static List<String> run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + "\n" + out).isZero();
    return new ArrayList<>(out.lines().toList());
  }
}
