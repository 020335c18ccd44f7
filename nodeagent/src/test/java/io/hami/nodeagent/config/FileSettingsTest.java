package io.hami.nodeagent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSettingsTest {
  @TempDir Path dir;

  static final String DEVICE_CONFIG =
      """
      nvidia:
        resourceCountName: nvidia.com/gpu
        resourceMemoryName: nvidia.com/gpumem
        resourceCoreName: nvidia.com/gpucores
        defaultMemory: 0
        deviceSplitCount: 10
        deviceMemoryScaling: 1.5
        deviceCoreScaling: 1
        preConfiguredDeviceMemory: 81920
        libCudaLogLevel: 1
        enableNumaTopology: true
        gpuCorePolicy: default
        knownMigGeometries: []
      cambricon:
        resourceCountName: cambricon.com/vmlu
      """;

  static final String NODE_CONFIG =
      """
      {"nodeconfig":[
        {"name":"other","devicesplitcount":3},
        {"name":"gpu-1","operatingmode":"mps","devicesplitcount":4,"devicememoryscaling":1,
         "devicecorescaling":2,"preconfigureddevicememory":0,"libcudaloglevel":"3",
         "enablenumatopology":false,"migstrategy":"none",
         "filterdevices":{"uuid":["GPU-x"],"index":[7]},"enablegetpreferredallocation":true}]}
      """;

  @Test
  void nodeEntryOverridesTheDeviceConfig() throws Exception {
    Files.writeString(dir.resolve("device-config.yaml"), DEVICE_CONFIG);
    Files.writeString(dir.resolve("config.json"), NODE_CONFIG);
    List<String> errors = new ArrayList<>();

    FileSettings s =
        FileSettings.deviceConfig(dir.resolve("device-config.yaml"), errors)
            .overriddenBy(FileSettings.nodeConfig(dir.resolve("config.json"), "gpu-1", errors));

    assertThat(errors).isEmpty();
    assertThat(s)
        .isEqualTo(
            new FileSettings(
                "nvidia.com/gpu",
                4,
                1.0,
                2.0,
                0L,
                "3",
                false,
                false,
                OperatingMode.MPS,
                true,
                List.of("GPU-x"),
                List.of(7),
                List.of()));
  }

  @Test
  void aNodeWithoutAnEntryKeepsTheDeviceConfig() throws Exception {
    Files.writeString(dir.resolve("device-config.yaml"), DEVICE_CONFIG);
    Files.writeString(dir.resolve("config.json"), NODE_CONFIG);
    List<String> errors = new ArrayList<>();

    FileSettings s =
        FileSettings.deviceConfig(dir.resolve("device-config.yaml"), errors)
            .overriddenBy(FileSettings.nodeConfig(dir.resolve("config.json"), "gpu-9", errors));

    assertThat(s.splitCount()).isEqualTo(10);
    assertThat(s.memoryScaling()).isEqualTo(1.5);
    assertThat(s.preConfiguredMemoryMiB()).isEqualTo(81920);
    assertThat(s.libCudaLogLevel()).isEqualTo("1");
    assertThat(s.numaTopology()).isTrue();
  }

  @Test
  void absentKeysTakeTheChartDefaults() throws Exception {
    Files.writeString(dir.resolve("device-config.yaml"), "nvidia:\n  deviceSplitCount: 4\n");
    List<String> errors = new ArrayList<>();
    FileSettings s = FileSettings.deviceConfig(dir.resolve("device-config.yaml"), errors);
    assertThat(errors).isEmpty();
    assertThat(s.splitCount()).isEqualTo(4);
    assertThat(s.resourceName()).isEqualTo("nvidia.com/gpu");
    assertThat(s.memoryScaling()).isEqualTo(1.0);
    assertThat(s.libCudaLogLevel()).isEqualTo("1");
    assertThat(s.disableCoreLimit()).isFalse();
  }

  @Test
  void badValuesAreAllReported() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(
        f,
        "nvidia:\n  deviceSplitCount: ten\n  deviceMemoryScaling: [1]\n  enableNumaTopology: maybe\n");
    List<String> errors = new ArrayList<>();

    FileSettings.deviceConfig(f, errors);
    FileSettings.deviceConfig(dir.resolve("missing.yaml"), errors);
    Files.writeString(dir.resolve("broken.yaml"), "nvidia: [");
    FileSettings.deviceConfig(dir.resolve("broken.yaml"), errors);

    assertThat(errors).hasSize(5);
    assertThat(errors.get(0)).startsWith(f + ": nvidia.deviceSplitCount: ").contains("ten");
    assertThat(errors.get(1)).startsWith(f + ": nvidia.deviceMemoryScaling: ");
    assertThat(errors.get(2)).startsWith(f + ": nvidia.enableNumaTopology: ").contains("maybe");
    assertThat(errors.get(3)).startsWith(dir.resolve("missing.yaml") + ": cannot read");
    assertThat(errors.get(4)).startsWith(dir.resolve("broken.yaml") + ": ");
  }
}
