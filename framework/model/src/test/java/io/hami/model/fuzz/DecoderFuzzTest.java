package io.hami.model.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.model.Decoded;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.NodeOverrides;
import io.hami.model.device.DeviceIds;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.device.PairScoreJson;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.handshake.Handshake;
import io.hami.model.handshake.HandshakeCheck;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.FitReasons;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.pod.ScoringWeights;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.RequestRule;
import io.hami.model.vendor.AscendRuntimeInfo;
import io.hami.model.vendor.NodeFacts;
import io.hami.model.vendor.VendorProtocol;
import io.hami.model.vendor.Vendors;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Feeds random and mutated strings to every decoder: none may throw, and each must return a value
 * or an error. Seeded, so a failure reproduces; the failing input is printed.
 */
class DecoderFuzzTest {

  private static final int INPUTS = 100_000;

  private static final List<String> SEEDS =
      List.of(
          "[{\"id\":\"GPU-8dcd427f-483b-b48f-d7e5-75fb19a52b76\",\"count\":10,\"devmem\":15360,\"devcore\":100,"
              + "\"type\":\"NVIDIA-Tesla T4\",\"mode\":\"hami-core\",\"health\":true}]",
          "[{\"ID\":\"GPU-0\",\"Count\":4,\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\",\"Numa\":0,"
              + "\"Health\":true,\"migProfiles\":[{\"name\":\"1g.5gb\",\"memoryMB\":4864,\"core\":15,\"sliceCount\":1,"
              + "\"placements\":[{\"start\":6,\"size\":1}]}]}]",
          "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4,10,7680,100,NVIDIA-Tesla P4,0,true,1,hami-core:",
          "test-0,1,1024,100,DCU,0,true:",
          "GPU-aaa,NVIDIA,3000,50:;GPU-bbb,NVIDIA,4000,60:;",
          ";uuid1,NVIDIA,1024,4:;uuid2,NVIDIA,2048,8:;",
          "[{\"uuid\":\"GPU-0\",\"score\":{\"GPU-1\":50,\"GPU-2\":20,\"GPU-3\":20}}]",
          "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-aaa\",\"profile\":\"1g.10gb\","
              + "\"placement\":{\"start\":0,\"size\":1},\"migUUID\":\"MIG-1\",\"gpuInstanceID\":1,\"computeInstanceID\":0}]",
          "[{\"UUID\":\"npu\",\"temp\":\"vir05_1c_16g\",\"memory\":16384,\"core\":5}]",
          "2026-08-21T16:20:39+08:00,default,gpu-pod-1",
          "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"node\":\"n\",\"nodes\":2,"
              + "\"reasons\":{\"CardInsufficientMemory\":2},\"moreReasons\":1,\"closest\":{\"a\":[\"r\"]}}",
          "{\"v\":1,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\",\"node\":\"a\",\"score\":9,"
              + "\"nodePolicy\":\"binpack\",\"gpuPolicy\":\"spread\",\"feasible\":2,\"evaluated\":2,\"top\":{\"a\":9}}",
          "Requesting_2026-08-21 08:20:39",
          "Reported 2024-01-23 04:30:04.434037031 +0000 UTC m=+1104711.777756895",
          "slot=1,core=2,memory=3",
          "3/8 CardInsufficientMemory, 2/8 CardInsufficientCore",
          "16Gi",
          "1e3",
          "500m",
          "-0.5Ki",
          "nvidia:\n  deviceSplitCount: 10\n  deviceMemoryScaling: 1.5\n  migProfileAllowlist:\n  - models: [A100]\n"
              + "iluvatars:\n- chipName: MR-V100\n  commonWord: MR-V100\n",
          "{\"nodeconfig\":[{\"name\":\"n\",\"devicesplitcount\":4,\"filterdevices\":{\"uuid\":[\"a\"],\"index\":[1]}}]}");

  private static final String ALPHABET =
      "[]{}\",:;_-+.eE0123456789 \n\tatrufnlTF\\/<>&*!#|?'%@&~`\u0000\u00e9\ud83d";

  private static final RequestRule RULE = RequestRule.NVIDIA_DEFAULTS;
  private static final VendorProtocol NVIDIA = Vendors.nvidia(DeviceConfig.DEFAULTS.nvidia());
  private static final VendorProtocol MLU = Vendors.cambricon(DeviceConfig.DEFAULTS.cambricon());
  private static final String NVIDIA_KEY = NVIDIA.keys().register();
  private static final LocalDateTime NOW = LocalDateTime.of(2026, 8, 21, 8, 20, 39);

  /** Every decoder, each wrapped to return its (non-null) result. */
  private static final List<Map.Entry<String, Function<String, Object>>> DECODERS =
      List.of(
          Map.entry("NodeDeviceJson", NodeDeviceJson::decode),
          Map.entry("MigProfile", NodeDeviceJson::decodeProfile),
          Map.entry("NodeDeviceColon", NodeDeviceColon::decode),
          Map.entry("PodDevices", PodDevicesCodec::decode),
          Map.entry("PairScoreJson", PairScoreJson::decode),
          Map.entry("MigAllocationJson", MigAllocationJson::decode),
          Map.entry("AscendRuntimeInfo", AscendRuntimeInfo::decode),
          Map.entry("NodeLock", NodeLock::decode),
          Map.entry("ScheduleRecord", ScheduleRecordCodec::decode),
          Map.entry("Handshake", Handshake::parse),
          Map.entry("HandshakeCheck", s -> HandshakeCheck.check(Optional.of(s), NOW, 0)),
          Map.entry("ScoringWeights", ScoringWeights::decode),
          Map.entry("FitReasons", FitReasons::parse),
          Map.entry("Quantity", s -> Quantities.parseInt64("q", s)),
          Map.entry(
              "RequestRule",
              s ->
                  RULE.derive(
                      ContainerResources.ofLimits(
                          Map.of(
                              "nvidia.com/gpu",
                              s,
                              "nvidia.com/gpumem",
                              s,
                              "nvidia.com/gpumem-percentage",
                              s)))),
          Map.entry("DeviceIds", DeviceIds::physicalId),
          Map.entry(
              "NvidiaRegister",
              s -> NVIDIA.register().read(NodeFacts.of("n", Map.of(NVIDIA_KEY, s)))),
          Map.entry(
              "CambriconCapacity",
              s ->
                  MLU.register()
                      .read(
                          new NodeFacts(
                              "n",
                              Map.of(),
                              Map.of(
                                  "cambricon.com/mlu.smlu.vcore",
                                  s,
                                  "cambricon.com/mlu.smlu.vmemory",
                                  s),
                              Map.of()))));

  @Test
  @Timeout(120)
  void decodersNeverThrow() {
    Random r = new Random(20260821);
    List<String> pool = new ArrayList<>(SEEDS);
    for (int i = 0; i < INPUTS; i++) {
      String input = next(r, pool);
      for (var d : DECODERS) {
        Object result;
        try {
          result = d.getValue().apply(input);
        } catch (RuntimeException | StackOverflowError e) {
          throw new AssertionError(d.getKey() + " threw on input " + quote(input), e);
        }
        assertThat(result).as(d.getKey()).isNotNull();
      }
      reencodes(input);
      // keep some outputs that are still well-formed-ish to mutate further
      if (pool.size() < 2_000 && r.nextInt(64) == 0) {
        pool.add(input);
      }
    }
  }

  @Test
  @Timeout(120)
  void configParsersNeverThrow() {
    Random r = new Random(7);
    List<String> pool = new ArrayList<>(SEEDS);
    for (int i = 0; i < INPUTS; i++) {
      String input = next(r, pool);
      try {
        assertThat(DeviceConfigFile.parse(input)).isNotNull();
        assertThat(NodeOverrides.parse(input)).isNotNull();
      } catch (RuntimeException | StackOverflowError e) {
        throw new AssertionError("DeviceConfigFile threw on input " + quote(input), e);
      }
    }
  }

  @Test
  @Timeout(120)
  void hugeAndPathologicalInputsFinish() {
    List<String> inputs =
        List.of(
            "[".repeat(1 << 18),
            "{\"a\":".repeat(30_000),
            ",".repeat(1 << 18) + ":",
            ":".repeat(1 << 18),
            ";".repeat(1 << 18),
            "a,b,1,2:".repeat(30_000),
            "[" + "{\"id\":\"x\",\"count\":1},".repeat(20_000) + "{}]",
            "[{\"count\":" + "9".repeat(30_000) + "}]",
            "9".repeat(1 << 18),
            "1e" + "9".repeat(1000),
            "&a [" + "*a,".repeat(10_000) + "]");
    for (String input : inputs) {
      for (var d : DECODERS) {
        assertThat(d.getValue().apply(input)).as(d.getKey()).isNotNull();
      }
      assertThat(DeviceConfigFile.parse(input)).isNotNull();
      assertThat(NodeOverrides.parse(input)).isNotNull();
    }
    assertThat(
            NodeDeviceJson.decode("[" + "{\"id\":\"x\",\"count\":1},".repeat(20_000) + "{}]")
                .map(List::size))
        .isEqualTo(Decoded.ok(20_001));
  }

  /** Whatever a codec accepted, it writes back in a form it reads as the same value. */
  private static void reencodes(String input) {
    NodeDeviceJson.decode(input)
        .toOptional()
        .ifPresent(
            v ->
                assertThat(NodeDeviceJson.decode(NodeDeviceJson.encode(v)))
                    .as(quote(input))
                    .isEqualTo(Decoded.ok(v)));
    NodeDeviceColon.decode(input)
        .toOptional()
        .filter(v -> !v.isEmpty())
        .ifPresent(
            v ->
                assertThat(NodeDeviceColon.decode(NodeDeviceColon.encode(v)))
                    .as(quote(input))
                    .isEqualTo(Decoded.ok(v)));
    PodDevicesCodec.decode(input)
        .toOptional()
        .ifPresent(
            v -> {
              List<List<ContainerDevice>> want = new ArrayList<>(v.containers());
              want.add(List.of());
              assertThat(PodDevicesCodec.decode(PodDevicesCodec.encode(v)))
                  .as(quote(input))
                  .isEqualTo(Decoded.ok(new PodDevices(want)));
            });
    PairScoreJson.decode(input)
        .toOptional()
        .ifPresent(
            v ->
                assertThat(PairScoreJson.decode(PairScoreJson.encode(v)))
                    .as(quote(input))
                    .isEqualTo(Decoded.ok(v)));
    NodeLock.decode(input)
        .toOptional()
        .ifPresent(
            v ->
                assertThat(NodeLock.decode(v.encode()).map(NodeLock::encode))
                    .as(quote(input))
                    .isEqualTo(Decoded.ok(v.encode())));
  }

  private static String next(Random r, List<String> pool) {
    int kind = r.nextInt(10);
    if (kind == 0) {
      return random(r, r.nextInt(64));
    }
    StringBuilder b = new StringBuilder(pool.get(r.nextInt(pool.size())));
    int edits = 1 + r.nextInt(4);
    for (int e = 0; e < edits; e++) {
      int pos = b.length() == 0 ? 0 : r.nextInt(b.length() + 1);
      switch (r.nextInt(7)) {
        case 0 -> b.insert(pos, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        case 1 -> {
          if (b.length() > 0) {
            b.deleteCharAt(Math.min(pos, b.length() - 1));
          }
        }
        case 2 -> {
          if (b.length() > 0) {
            b.setCharAt(
                Math.min(pos, b.length() - 1), ALPHABET.charAt(r.nextInt(ALPHABET.length())));
          }
        }
        case 3 -> b.setLength(pos);
        case 4 -> {
          int from = r.nextInt(b.length() + 1);
          int to = Math.min(b.length(), from + r.nextInt(16));
          b.insert(pos, b.substring(from, to));
        }
        case 5 -> {
          String other = pool.get(r.nextInt(pool.size()));
          b.insert(pos, other.substring(0, r.nextInt(other.length() + 1)));
        }
        default -> b.insert(pos, Integer.toString(r.nextInt()));
      }
    }
    if (b.length() > 2_000) {
      b.setLength(2_000);
    }
    return b.toString();
  }

  private static String random(Random r, int n) {
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(
          r.nextInt(4) == 0
              ? (char) r.nextInt(0x10000)
              : ALPHABET.charAt(r.nextInt(ALPHABET.length())));
    }
    return b.toString();
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c == '"' ? "\\\"" : String.valueOf(c));
      }
    }
    return b.append('"').toString();
  }
}
