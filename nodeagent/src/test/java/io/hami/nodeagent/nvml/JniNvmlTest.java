package io.hami.nodeagent.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim is built and packaged by Maven; it must load everywhere and fail cleanly without NVML.
 */
class JniNvmlTest {

  @Test
  void shimLoadsAndReportsNvmlState() throws Exception {
    NativeLibrary.ensureLoaded();
    try (JniNvml nvml = JniNvml.open(new SysfsNuma(Path.of("/sys/bus/pci/devices")))) {
      // A host with a driver: discovery must work.
      assertThat(nvml.describe()).startsWith("NVML, driver ");
      assertThat(nvml.devices())
          .allMatch(g -> g.uuid().startsWith("GPU-") || g.uuid().startsWith("MIG-"));
    } catch (NvmlException e) {
      assertThat(e.code()).isEqualTo(NvmlException.NOT_LOADED);
      assertThat(e.getMessage()).startsWith("NVML not available: ");
      assertThat(e.getMessage()).contains("libnvidia-ml.so.1");
    }
  }

  @Test
  void sysfsBusIdIsShortAndLowerCase() {
    assertThat(SysfsNuma.sysfsBusId("00000000:3B:00.0")).isEqualTo("0000:3b:00.0");
    assertThat(SysfsNuma.sysfsBusId("0000:3b:00.0")).isEqualTo("0000:3b:00.0");
  }

  @Test
  void numaNodeFromSysfsClampsNegativeAndMissing(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("0000:3b:00.0"));
    Files.writeString(dir.resolve("0000:3b:00.0/numa_node"), "1\n");
    Files.createDirectories(dir.resolve("0000:18:00.0"));
    Files.writeString(dir.resolve("0000:18:00.0/numa_node"), "-1\n");
    SysfsNuma numa = new SysfsNuma(dir);
    assertThat(numa.numaNode("00000000:3B:00.0")).isEqualTo(1);
    assertThat(numa.numaNode("00000000:18:00.0")).isZero();
    assertThat(numa.numaNode("00000000:AF:00.0")).isZero();
  }
}
