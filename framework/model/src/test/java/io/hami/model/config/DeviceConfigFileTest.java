package io.hami.model.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.model.ProtocolError;
import io.hami.model.resource.ResourceNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec §6.3: the device config file. */
class DeviceConfigFileTest {

  private static DeviceConfig valid(String yaml) {
    Validated<DeviceConfig> v = DeviceConfigFile.parse(yaml);
    assertThat(v).isInstanceOf(Validated.Valid.class);
    return ((Validated.Valid<DeviceConfig>) v).value();
  }

  private static List<ProtocolError> invalid(String yaml) {
    Validated<DeviceConfig> v = DeviceConfigFile.parse(yaml);
    assertThat(v).isInstanceOf(Validated.Invalid.class);
    return ((Validated.Invalid<DeviceConfig>) v).errors();
  }

  @Test
  void emptyFileGivesDefaults() {
    assertThat(valid("")).isEqualTo(DeviceConfig.DEFAULTS);
    assertThat(valid("# comment only\n")).isEqualTo(DeviceConfig.DEFAULTS);
    NvidiaConfig d = DeviceConfig.DEFAULTS.nvidia();
    assertThat(d.deviceSplitCount()).isEqualTo(10);
    assertThat(d.defaultGpuNum()).isEqualTo(1);
    assertThat(d.memoryFactor()).isEqualTo(1);
    assertThat(d.libCudaLogLevel()).isEqualTo(1);
    assertThat(d.gpuCorePolicy()).isEqualTo(GpuCorePolicy.DEFAULT);
    assertThat(d.resourceNames()).isEqualTo(ResourceNames.NVIDIA);
  }

  @Test
  void chartStyleFile() {
    DeviceConfig c =
        valid(
            """
        nvidia:
          resourceCountName: nvidia.com/gpu
          resourceMemoryName: nvidia.com/gpumem
          resourceMemoryPercentageName: nvidia.com/gpumem-percentage
          resourceCoreName: nvidia.com/gpucores
          resourcePriorityName: nvidia.com/priority
          overwriteEnv: false
          defaultMemory: 0
          defaultCores: 0
          defaultGPUNum: 1
          memoryFactor: 2
          deviceSplitCount: 4
          deviceMemoryScaling: 1.5
          deviceCoreScaling: 1
          libCudaLogLevel: 3
          gpuCorePolicy: force
          runtimeClassName: nvidia
          migProfileAllowlist:
            - models: ["NVIDIA A100-SXM4-40GB"]
              profiles: ["1g.5gb", "3g.20gb"]
          knownMigGeometries:
            - models: [A30]
        cambricon:
          resourceCountName: cambricon.com/vmlu
        hygon:
          resourceCountName: hygon.com/dcunum
          memoryFactor: 4
        metax:
          resourceCountName: metax-tech.com/gpu
        iluvatars:
          - chipName: MR-V100
            commonWord: MR-V100
            resourceCountName: iluvatar.ai/MR-V100-vgpu
            resourceMemoryName: iluvatar.ai/MR-V100.vMem
            resourceCoreName: iluvatar.ai/MR-V100.vCore
        vnpus:
          - ignored: because it must be a mapping
        """
                .replace("vnpus:\n  - ignored: because it must be a mapping\n", ""));
    assertThat(c.nvidia().memoryFactor()).isEqualTo(2);
    assertThat(c.nvidia().deviceSplitCount()).isEqualTo(4);
    assertThat(c.nvidia().deviceMemoryScaling()).isEqualTo(1.5);
    assertThat(c.nvidia().gpuCorePolicy()).isEqualTo(GpuCorePolicy.FORCE);
    assertThat(c.nvidia().runtimeClassName()).isEqualTo("nvidia");
    assertThat(c.nvidia().migProfileAllowlist())
        .containsExactly(
            new MigAllowlistEntry(List.of("NVIDIA A100-SXM4-40GB"), List.of("1g.5gb", "3g.20gb")));
    assertThat(c.nvidia().requestRule().memoryFactor()).isEqualTo(2);
    assertThat(c.hygon().memoryFactor()).isEqualTo(4);
    assertThat(c.iluvatars()).hasSize(1);
    assertThat(c.iluvatars().get(0).resourceNames().memory()).isEqualTo("iluvatar.ai/MR-V100.vMem");
  }

  @Test
  void ascendConfigs() {
    DeviceConfig c =
        valid(
            """
        vnpus:
          hamiVnpuCore: false
          configs:
            - chipName: 910B3
              commonWord: Ascend910B3
              resourceName: huawei.com/Ascend910B3
              resourceMemoryName: huawei.com/Ascend910B3-memory
              memoryAllocatable: 65536
              memoryCapacity: 65536
              aiCore: 20
              aiCPU: 7
              templates:
                - name: vir10_3c_32g
                  memory: 32768
                  aiCore: 10
                  aiCPU: 3
                - name: vir05_1c_16g
                  memory: 16384
                  aiCore: 5
                  aiCPU: 1
        """);
    AscendChipConfig chip = c.vnpus().configs().get(0);
    assertThat(chip.templates())
        .extracting(AscendTemplate::name)
        .containsExactly("vir05_1c_16g", "vir10_3c_32g");
    assertThat(chip.templateFor(20000).orElseThrow().name()).isEqualTo("vir10_3c_32g");
    assertThat(chip.templateFor(70000)).isEmpty();
  }

  @Test
  void everyBadFieldReportedWithPathAndValue() {
    List<ProtocolError> errors =
        invalid(
            """
        nvidia:
          deviceSplitCount: 0
          deviceMemoryScaling: -1
          defaultCores: 150
          memoryFactor: two
          gpuCorePolicy: sometimes
          resourceCountName: "not a resource"
          overwriteEnv: "yes please"
          runtimeClassName: Bad_Name
        hygon:
          memoryFactor: 0
        iluvatars:
          - chipName: MR-V100
          - commonWord: X
            chipName: Y
          - commonWord: X
            chipName: Z
        vnpus:
          configs:
            - chipName: c
              commonWord: A
              memoryAllocatable: 10
              memoryCapacity: 5
              templates:
                - name: t
                  memory: 0
        """);
    assertThat(errors)
        .extracting(ProtocolError::field)
        .containsExactlyInAnyOrder(
            "nvidia.resourceCountName",
            "nvidia.defaultCores",
            "nvidia.memoryFactor",
            "nvidia.deviceSplitCount",
            "nvidia.deviceMemoryScaling",
            "nvidia.gpuCorePolicy",
            "nvidia.overwriteEnv",
            "nvidia.runtimeClassName",
            "hygon.memoryFactor",
            "iluvatars[0].commonWord",
            "iluvatars[2].commonWord",
            "vnpus.configs[0].memoryAllocatable",
            "vnpus.configs[0].templates[0].memory");
    assertThat(errors)
        .filteredOn(e -> e.field().equals("nvidia.deviceSplitCount"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.value()).isEqualTo("0");
              assertThat(e.message()).contains("at least 1");
            });
    assertThat(errors)
        .filteredOn(e -> e.field().equals("nvidia.memoryFactor"))
        .singleElement()
        .satisfies(e -> assertThat(e.value()).isEqualTo("two"));
    assertThat(errors)
        .filteredOn(e -> e.field().equals("nvidia.gpuCorePolicy"))
        .singleElement()
        .satisfies(e -> assertThat(e.value()).isEqualTo("sometimes"));
  }

  @Test
  void duplicateResourceNames() {
    assertThat(invalid("nvidia:\n  resourceCoreName: nvidia.com/gpu\n"))
        .extracting(ProtocolError::field)
        .containsExactly("nvidia.resourceCoreName");
  }

  @Test
  void unknownKeysAreWarnings() {
    Validated<DeviceConfig> v =
        DeviceConfigFile.parse("nvidia:\n  deviceSplitcount: 3\nmystery: 1\n");
    assertThat(v).isInstanceOf(Validated.Valid.class);
    // keys match case-insensitively, so the odd spelling is still read
    assertThat(((Validated.Valid<DeviceConfig>) v).value().nvidia().deviceSplitCount())
        .isEqualTo(3);
    assertThat(((Validated.Valid<DeviceConfig>) v).warnings())
        .containsExactly("mystery: unknown key ignored");
  }

  @Test
  void malformedYaml() {
    assertThat(invalid("nvidia: [unclosed"))
        .singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("invalid YAML"));
    assertThat(invalid("- a list"))
        .singleElement()
        .satisfies(e -> assertThat(e.message()).contains("must be a mapping"));
    assertThat(invalid("nvidia: 3")).extracting(ProtocolError::field).containsExactly("nvidia");
  }

  @Test
  void loadsFromFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("device-config.yaml");
    Files.writeString(f, "nvidia:\n  deviceSplitCount: 7\n");
    assertThat(
            ((Validated.Valid<DeviceConfig>) DeviceConfigFile.load(f))
                .value()
                .nvidia()
                .deviceSplitCount())
        .isEqualTo(7);
    assertThat(DeviceConfigFile.load(dir.resolve("missing.yaml")).isValid()).isFalse();
  }

  @Test
  void nodeOverrides() {
    Validated<List<NodeOverride>> v =
        NodeOverrides.parse(
            """
        {"nodeconfig":[{"name":"node-a","operatingmode":"mig","devicesplitcount":4,"devicememoryscaling":2,
        "devicecorescaling":1,"preconfigureddevicememory":0,"libcudaloglevel":"3","enablenumatopology":true,
        "migstrategy":"none","filterdevices":{"uuid":["GPU-x"],"index":[3]},"enablegetpreferredallocation":true}]}
        """);
    List<NodeOverride> list = ((Validated.Valid<List<NodeOverride>>) v).value();
    NodeOverride o = NodeOverrides.forNode(list, "node-a").orElseThrow();
    NvidiaConfig applied = o.applyTo(NvidiaConfig.DEFAULTS);
    assertThat(applied.deviceSplitCount()).isEqualTo(4);
    assertThat(applied.deviceMemoryScaling()).isEqualTo(2.0);
    assertThat(applied.libCudaLogLevel()).isEqualTo(3);
    assertThat(applied.enableNumaTopology()).isTrue();
    assertThat(o.operatingMode()).contains("mig");
    assertThat(o.filters("GPU-x", 0)).isTrue();
    assertThat(o.filters("GPU-y", 3)).isTrue();
    assertThat(o.filters("GPU-y", 1)).isFalse();
    assertThat(o.enableGetPreferredAllocation()).isTrue();
    assertThat(NodeOverrides.forNode(list, "node-b")).isEmpty();
  }

  @Test
  void nodeOverridesErrors() {
    Validated<List<NodeOverride>> v =
        NodeOverrides.parse(
            "{\"nodeconfig\":[{\"operatingmode\":\"turbo\",\"devicesplitcount\":0,\"libcudaloglevel\":\"9\","
                + "\"filterdevices\":{\"index\":[-1]}}]}");
    assertThat(((Validated.Invalid<List<NodeOverride>>) v).errors())
        .extracting(ProtocolError::field)
        .containsExactlyInAnyOrder(
            "nodeconfig[0].name",
            "nodeconfig[0].operatingmode",
            "nodeconfig[0].devicesplitcount",
            "nodeconfig[0].libcudaloglevel",
            "nodeconfig[0].filterdevices.index[0]");
  }
}
