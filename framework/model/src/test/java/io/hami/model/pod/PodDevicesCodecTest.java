package io.hami.model.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §1.5 and §10.3: pod device annotations. */
class PodDevicesCodecTest {

  private static final String A = "GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76";
  private static final String B = "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4";

  private static ContainerDevice dev(String uuid, String type, int mem, int cores) {
    return new ContainerDevice(uuid, type, mem, cores);
  }

  static Stream<Arguments> decodes() {
    return Stream.of(
        arguments(
            "V21 two containers + trailing empty",
            A + ",NVIDIA,500,3:;" + B + ",NVIDIA,500,3:;",
            PodDevices.of(
                List.of(dev(A, "NVIDIA", 500, 3)), List.of(dev(B, "NVIDIA", 500, 3)), List.of())),
        arguments("V24 empty string", "", PodDevices.of(List.of())),
        arguments("§1.5 [[]] encoding", ";", PodDevices.of(List.of(), List.of())),
        arguments(
            "§1.5 init padding",
            ";GPU-aaa,NVIDIA,1000,30:;",
            PodDevices.of(List.of(), List.of(dev("GPU-aaa", "NVIDIA", 1000, 30)), List.of())),
        arguments(
            "extra fields ignored",
            "u,NVIDIA,1,2,extra,more:;",
            PodDevices.of(List.of(dev("u", "NVIDIA", 1, 2)), List.of())),
        arguments(
            "missing terminators",
            "u,NVIDIA,1,2",
            PodDevices.of(List.of(dev("u", "NVIDIA", 1, 2)))),
        arguments(
            "pieces without comma skipped",
            "junk:u,NVIDIA,1,2::;",
            PodDevices.of(List.of(dev("u", "NVIDIA", 1, 2)), List.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decodes")
  void decode(String name, String input, PodDevices want) {
    assertThat(PodDevicesCodec.decode(input)).isEqualTo(Decoded.ok(want));
  }

  static Stream<Arguments> encodes() {
    ContainerDevice u1 = dev("UUID1", "Type1", 1000, 30);
    ContainerDevice u2 = dev("UUID2", "Type1", 1000, 30);
    return Stream.of(
        arguments(
            "V22 one device",
            PodDevices.of(List.of(u1)),
            "UUID1,Type1,1000,30:;",
            PodDevices.of(List.of(u1), List.of())),
        arguments(
            "V23 two devices one container",
            PodDevices.of(List.of(u1, u2)),
            "UUID1,Type1,1000,30:UUID2,Type1,1000,30:;",
            PodDevices.of(List.of(u1, u2), List.of())),
        arguments("V24 no containers", PodDevices.empty(), "", PodDevices.of(List.of())),
        arguments("§1.5 [[]]", PodDevices.of(List.of()), ";", PodDevices.of(List.of(), List.of())),
        arguments(
            "§1.5 example same card twice",
            PodDevices.of(
                List.of(dev("GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448", "NVIDIA", 3000, 0)),
                List.of(dev("GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448", "NVIDIA", 5000, 0))),
            "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,NVIDIA,3000,0:;GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448,NVIDIA,5000,0:;",
            PodDevices.of(
                List.of(dev("GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448", "NVIDIA", 3000, 0)),
                List.of(dev("GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448", "NVIDIA", 5000, 0)),
                List.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("encodes")
  void encode(String name, PodDevices pod, String want, PodDevices decoded) {
    assertThat(PodDevicesCodec.encode(pod)).isEqualTo(want);
    assertThat(PodDevicesCodec.decode(want)).isEqualTo(Decoded.ok(decoded));
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        arguments("V25 three fields", "uuid,type,100:;", "[0][0]", "missing fields"),
        arguments(
            "bad usedmem", "a,NVIDIA,1,1:;b,NVIDIA,x,1:;", "[1][0].usedmem", "invalid usedmem"),
        arguments("bad usedcores", "a,NVIDIA,1,1.5:", "[0][0].usedcores", "invalid usedcores"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void decodeError(String name, String input, String field, String message) {
    var e = PodDevicesCodec.decode(input).failure().orElseThrow();
    assertThat(e.field()).isEqualTo(field);
    assertThat(e.message()).contains(message);
  }

  @Test
  void v26_encodeContainerDeviceType() {
    List<ContainerDevice> devices =
        List.of(
            dev("GPU-936619fc-f6a1-74a8-0bc6-ecf6b3269313", "NVIDIA", 1000, 10),
            dev(A, "AMD", 2000, 20),
            dev(B, "NVIDIA", 3000, 30));
    assertThat(PodDevicesCodec.encodeContainerDeviceType(devices, "NVIDIA"))
        .isEqualTo(
            "GPU-936619fc-f6a1-74a8-0bc6-ecf6b3269313,NVIDIA,1000,10:" + B + ",NVIDIA,3000,30");
    assertThat(PodDevicesCodec.encodeContainerDeviceType(List.of(), "NVIDIA")).isEmpty();
  }

  @Test
  void v84_popOrder() throws Exception {
    PodDevices pod =
        PodDevicesCodec.decode(";uuid1,NVIDIA,1024,4:;uuid2,NVIDIA,2048,8:;").orElseThrow();
    var first = pod.popFirstNonEmpty().orElseThrow();
    assertThat(first.index()).isEqualTo(1);
    assertThat(first.devices()).containsExactly(dev("uuid1", "NVIDIA", 1024, 4));
    var second = first.rest().popFirstNonEmpty().orElseThrow();
    assertThat(second.index()).isEqualTo(2);
    assertThat(second.devices()).containsExactly(dev("uuid2", "NVIDIA", 2048, 8));
    assertThat(second.rest().popFirstNonEmpty()).isEmpty();
    assertThat(PodDevicesCodec.encode(first.rest())).isEqualTo(";;uuid2,NVIDIA,2048,8:;;");
  }

  @Test
  void encoderRejectsSeparatorsInFields() {
    Assertions.assertThatIllegalArgumentException()
        .isThrownBy(
            () -> PodDevicesCodec.encode(PodDevices.of(List.of(dev("a;b", "NVIDIA", 1, 1)))));
  }
}
