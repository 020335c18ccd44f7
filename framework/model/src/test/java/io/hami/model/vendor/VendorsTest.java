package io.hami.model.vendor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import io.hami.model.config.AscendChipConfig;
import io.hami.model.config.AscendTemplate;
import io.hami.model.config.CambriconConfig;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.HygonConfig;
import io.hami.model.config.IluvatarConfig;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.ResourceNames;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §8: per-vendor register, request and allocation formats. */
class VendorsTest {

  private static final Instant NOW = Instant.ofEpochSecond(1705054796);

  private static final AscendChipConfig ASCEND_910B3 =
      new AscendChipConfig(
          "910B3",
          "Ascend910B3",
          "huawei.com/Ascend910B3",
          "huawei.com/Ascend910B3-memory",
          "",
          65536,
          65536,
          1,
          20,
          7,
          "",
          false,
          false,
          List.of(
              new AscendTemplate("vir10_3c_32g", 32768, 10, 3),
              new AscendTemplate("vir05_1c_16g", 16384, 5, 1)));

  private static final VendorProtocol NVIDIA = Vendors.nvidia(NvidiaConfig.DEFAULTS);
  private static final VendorProtocol HYGON = Vendors.hygon(HygonConfig.DEFAULTS);
  private static final VendorProtocol MLU = Vendors.cambricon(CambriconConfig.DEFAULTS);
  private static final VendorProtocol ILUVATAR =
      Vendors.iluvatar(new IluvatarConfig("BI-V150", "BI-V150", ResourceNames.iluvatar("BI-V150")));
  private static final VendorProtocol ASCEND = Vendors.ascend(ASCEND_910B3, false);

  static Stream<Arguments> registers() {
    return Stream.of(
        arguments(
            "NVIDIA JSON",
            NVIDIA,
            Map.of(
                "hami.io/node-nvidia-register",
                "[{\"id\":\"GPU-0\",\"count\":10,\"devmem\":8192,\"devcore\":100,\"type\":\"NVIDIA-A100\",\"health\":true}]"),
            List.of(NodeDevice.of("GPU-0", 0, 10, 8192, 100, "NVIDIA-A100", 0, "", true))),
        arguments(
            "NVIDIA colon fallback (<= v2.7)",
            NVIDIA,
            Map.of("hami.io/node-nvidia-register", "GPU-0,10,8192,100,NVIDIA-A100,0,true:"),
            List.of(NodeDevice.of("GPU-0", 0, 10, 8192, 100, "NVIDIA-A100", 0, "hami-core", true))),
        arguments(
            "V13 Hygon colon",
            HYGON,
            Map.of("hami.io/node-dcu-register", "test-0,1,1024,100,DCU,0,true,0,test:"),
            List.of(NodeDevice.of("test-0", 0, 1, 1024, 100, "DCU", 0, "test", true))),
        arguments(
            "Iluvatar colon",
            ILUVATAR,
            Map.of(
                "hami.io/node-BI-V150-register",
                "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae,10,8192,100,MR-V100,0,true:"),
            List.of(
                NodeDevice.of(
                    "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae",
                    0,
                    10,
                    8192,
                    100,
                    "MR-V100",
                    0,
                    "hami-core",
                    true))),
        arguments(
            "V20 Ascend capitalised JSON",
            ASCEND,
            Map.of(
                "hami.io/node-register-Ascend910B3",
                "[{\"ID\":\"GPU-0\",\"Count\":4,\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\","
                    + "\"Numa\":0,\"Health\":true}]"),
            List.of(NodeDevice.of("GPU-0", 0, 4, 8738, 8, "huawei.com/Ascend910", 0, "", true))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("registers")
  void readRegister(
      String name, VendorProtocol v, Map<String, String> annos, List<NodeDevice> want) {
    assertThat(v.register().read(NodeFacts.of("node-1", annos))).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> registerErrors() {
    return Stream.of(
        arguments(
            "V20 empty JSON array",
            ASCEND,
            Map.of("hami.io/node-register-Ascend910B3", "[]"),
            "no device found on node"),
        arguments(
            "NVIDIA empty array",
            NVIDIA,
            Map.of("hami.io/node-nvidia-register", "[]"),
            "no device found on node"),
        arguments("missing annotation", NVIDIA, Map.of(), "not found"),
        arguments(
            "V14 Hygon 5 fields",
            HYGON,
            Map.of("hami.io/node-dcu-register", "test-0,1,1024,100,DCU:"),
            "unexpected field count 5"),
        arguments("MLU without capacity", MLU, Map.of(), "no device found on node"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("registerErrors")
  void readRegisterError(String name, VendorProtocol v, Map<String, String> annos, String message) {
    var e = v.register().read(NodeFacts.of("node-1", annos)).failure().orElseThrow();
    assertThat(e.message()).contains(message);
  }

  @Test
  void writersRoundTrip() {
    List<NodeDevice> devices =
        List.of(NodeDevice.of("GPU-0", 1, 10, 8192, 100, "NVIDIA-A100", 1, "hami-core", true));
    for (VendorProtocol v : List.of(NVIDIA, HYGON, ILUVATAR, ASCEND)) {
      Map<String, String> annos = v.registerWriter().orElseThrow().write(devices);
      assertThat(annos).containsOnlyKeys(v.keys().register());
      assertThat(v.register().read(NodeFacts.of("n", annos))).isEqualTo(Decoded.ok(devices));
    }
    assertThat(
            NVIDIA
                .registerWriter()
                .orElseThrow()
                .write(devices)
                .get("hami.io/node-nvidia-register"))
        .startsWith("[{\"id\":\"GPU-0\",\"index\":1,");
    assertThat(MLU.registerWriter()).isEmpty();
  }

  @Test
  void cambriconCapacity() {
    NodeFacts node =
        new NodeFacts(
            "n1",
            Map.of(),
            Map.of("cambricon.com/mlu.smlu.vcore", "200", "cambricon.com/mlu.smlu.vmemory", "200"),
            Map.of());
    assertThat(MLU.register().read(node))
        .isEqualTo(
            Decoded.ok(
                List.of(
                    NodeDevice.of("n1-cambricon-mlu-0", 0, 100, 25600, 100, "MLU", 0, "", true),
                    NodeDevice.of("n1-cambricon-mlu-1", 1, 100, 25600, 100, "MLU", 0, "", true))));
  }

  static Stream<Arguments> requests() {
    return Stream.of(
        arguments(
            "MLU memory x256, cores 100",
            MLU,
            Map.of("cambricon.com/vmlu", "1", "cambricon.com/mlu.smlu.vmemory", "4"),
            new ContainerRequest(1, "MLU", 1024, 101, 100)),
        arguments(
            "MLU no memory -> whole card",
            MLU,
            Map.of("cambricon.com/vmlu", "1"),
            new ContainerRequest(1, "MLU", 0, 100, 100)),
        arguments(
            "DCU cores default 100",
            HYGON,
            Map.of("hygon.com/dcunum", "1", "hygon.com/dcumem", "2000"),
            new ContainerRequest(1, "DCU", 2000, 101, 100)),
        arguments(
            "DCU explicit cores",
            HYGON,
            Map.of("hygon.com/dcunum", "2", "hygon.com/dcucores", "30"),
            new ContainerRequest(2, "DCU", 0, 100, 30)),
        arguments(
            "Iluvatar memory x256",
            ILUVATAR,
            Map.of(
                "iluvatar.ai/BI-V150-vgpu",
                "1",
                "iluvatar.ai/BI-V150.vMem",
                "8",
                "iluvatar.ai/BI-V150.vCore",
                "50"),
            new ContainerRequest(1, "BI-V150", 2048, 101, 50)),
        arguments(
            "Ascend template round-up",
            ASCEND,
            Map.of("huawei.com/Ascend910B3", "1", "huawei.com/Ascend910B3-memory", "10000"),
            new ContainerRequest(1, "Ascend910B3", 16384, 101, 0)),
        arguments(
            "Ascend whole card",
            ASCEND,
            Map.of("huawei.com/Ascend910B3", "1"),
            new ContainerRequest(1, "Ascend910B3", 0, 100, 0)),
        arguments(
            "NVIDIA other vendor's resources ignored",
            NVIDIA,
            Map.of("hygon.com/dcunum", "1"),
            ContainerRequest.none("NVIDIA")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void readRequest(
      String name, VendorProtocol v, Map<String, String> limits, ContainerRequest want) {
    assertThat(v.requests().read(ContainerResources.ofLimits(limits))).isEqualTo(Decoded.ok(want));
  }

  @Test
  void ascendTemplateTooSmall() {
    var e =
        ASCEND
            .requests()
            .read(
                ContainerResources.ofLimits(
                    Map.of(
                        "huawei.com/Ascend910B3", "1", "huawei.com/Ascend910B3-memory", "40000")))
            .failure()
            .orElseThrow();
    assertThat(e.field()).isEqualTo("huawei.com/Ascend910B3-memory");
  }

  static Stream<Arguments> ascendRules() {
    AscendChipConfig c910 =
        new AscendChipConfig(
            "910C",
            "Ascend910C",
            "huawei.com/Ascend910C",
            "huawei.com/Ascend910C-memory",
            "",
            65536,
            65536,
            1,
            20,
            7,
            "",
            false,
            true,
            List.of());
    VendorProtocol superPod = Vendors.ascend(c910, false);
    VendorProtocol soft = Vendors.ascend(ASCEND_910B3, true);
    String n = "huawei.com/Ascend910B3";
    String m = "huawei.com/Ascend910B3-memory";
    return Stream.of(
        arguments(
            "super-pod 1 becomes 2",
            superPod,
            Map.of("huawei.com/Ascend910C", "1"),
            Decoded.ok(new ContainerRequest(2, "Ascend910C", 0, 100, 0))),
        arguments(
            "super-pod 4 kept",
            superPod,
            Map.of("huawei.com/Ascend910C", "4"),
            Decoded.ok(new ContainerRequest(4, "Ascend910C", 0, 100, 0))),
        arguments("super-pod odd 3 rejected", superPod, Map.of("huawei.com/Ascend910C", "3"), null),
        arguments(
            "partial template with 2 devices rejected", ASCEND, Map.of(n, "2", m, "16384"), null),
        arguments(
            "whole-chip memory with 2 devices",
            ASCEND,
            Map.of(n, "2", m, "65536"),
            Decoded.ok(new ContainerRequest(2, "Ascend910B3", 65536, 101, 0))),
        arguments("no template large enough", ASCEND, Map.of(n, "1", m, "40000"), null),
        arguments(
            "above a chip is the whole chip",
            ASCEND,
            Map.of(n, "1", m, "70000"),
            Decoded.ok(new ContainerRequest(1, "Ascend910B3", 70000, 101, 0))),
        arguments(
            "soft split keeps memory",
            soft,
            Map.of(n, "1", m, "10000"),
            Decoded.ok(new ContainerRequest(1, "Ascend910B3", 10000, 101, 0))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ascendRules")
  void ascendRequestRules(
      String name,
      VendorProtocol v,
      Map<String, String> limits,
      @Nullable Decoded<ContainerRequest> want) {
    Decoded<ContainerRequest> got = v.requests().read(ContainerResources.ofLimits(limits));
    if (want == null) {
      assertThat(got.isOk()).as(got.toString()).isFalse();
    } else {
      assertThat(got).isEqualTo(want);
    }
  }

  @Test
  void v87_cambriconDecision() {
    PodDevices decision =
        PodDevicesCodec.decode("device-0,MLU,256000,1:;").toOptional().orElseThrow();
    Map<String, String> annos = MLU.allocationWriter().write(decision, NOW);
    assertThat(annos)
        .containsEntry("CAMBRICON_DSMLU_PROFILE", "0_1_1000")
        .containsEntry("CAMBRICON_DSMLU_ASSIGNED", "false")
        .containsEntry("hami.io/cambricon-mlu-devices-to-allocate", "device-0,MLU,256000,1:;;")
        .containsEntry("hami.io/cambricon-mlu-devices-allocated", "device-0,MLU,256000,1:;;");
  }

  @Test
  void nvidiaDecisionAndReadBack() {
    PodDevices decision =
        PodDevices.of(List.of(), List.of(new ContainerDevice("GPU-aaa", "NVIDIA", 1000, 30)));
    Map<String, String> annos = NVIDIA.allocationWriter().write(decision, NOW);
    assertThat(annos)
        .isEqualTo(
            Map.of(
                "hami.io/vgpu-devices-to-allocate", ";GPU-aaa,NVIDIA,1000,30:;",
                "hami.io/vgpu-devices-allocated", ";GPU-aaa,NVIDIA,1000,30:;"));
    PodDevices back =
        NVIDIA.allocationReader().toAllocate(annos).orElseThrow().toOptional().orElseThrow();
    assertThat(back.popFirstNonEmpty().orElseThrow().index()).isEqualTo(1);
    assertThat(NVIDIA.allocationReader().allocated(Map.of())).isEmpty();
  }

  @Test
  void ascendDecisionAnnotations() {
    PodDevices decision =
        PodDevices.of(List.of(new ContainerDevice("npu-1", "Ascend910B3", 16384, 5)));
    Map<String, String> annos = ASCEND.allocationWriter().write(decision, NOW);
    assertThat(annos)
        .containsEntry(
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"npu-1\",\"temp\":\"vir05_1c_16g\",\"memory\":16384,\"core\":5}]")
        .containsEntry("predicate-time", "1705054796")
        .containsEntry("hami.io/Ascend910B3-devices-to-allocate", "npu-1,Ascend910B3,16384,5:;");
    assertThat(AscendRuntimeInfo.decode(annos.get("huawei.com/Ascend910B3")))
        .isEqualTo(Decoded.ok(List.of(new AscendRuntimeInfo("npu-1", "vir05_1c_16g", 16384, 5))));
  }

  @Test
  void v24_allocatedAcrossVendors() {
    List<VendorProtocol> all = Vendors.all(DeviceConfig.DEFAULTS, false, false);
    assertThat(Vendors.allocated(all, Map.of())).isEqualTo(Decoded.ok(Map.of()));
    assertThat(
            Vendors.allocated(
                all,
                Map.of(
                    "hami.io/vgpu-devices-allocated",
                    "",
                    "hami.io/dcu-devices-allocated",
                    "d,DCU,1,2:;")))
        .isEqualTo(
            Decoded.ok(
                Map.of(
                    "NVIDIA", PodDevices.of(List.of()),
                    "DCU",
                        PodDevices.of(List.of(new ContainerDevice("d", "DCU", 1, 2)), List.of()))));
    var err =
        Vendors.allocated(all, Map.of("hami.io/dcu-devices-allocated", "d,DCU,1:;"))
            .failure()
            .orElseThrow();
    assertThat(err.field()).isEqualTo("hami.io/dcu-devices-allocated[0][0]");
  }

  @Test
  void keyCatalogue() {
    assertThat(VendorKeys.ascend("Ascend910B3").register())
        .isEqualTo("hami.io/node-register-Ascend910B3");
    assertThat(VendorKeys.ascend("Ascend910B3").handshake())
        .isEqualTo("hami.io/node-handshake-Ascend910B3");
    assertThat(VendorKeys.iluvatar("BI-V150").register())
        .isEqualTo("hami.io/node-BI-V150-register");
    assertThat(VendorKeys.iluvatar("BI-V150").useUuid()).isEqualTo("hami.io/use-BI-V150-uuid");
    assertThat(VendorKeys.HYGON.handshake()).isEqualTo("hami.io/node-handshake-dcu");
    assertThat(Vendors.all(DeviceConfig.DEFAULTS, true, true))
        .extracting(VendorProtocol::commonWord)
        .containsExactly("NVIDIA", "MLU", "DCU");
  }
}
