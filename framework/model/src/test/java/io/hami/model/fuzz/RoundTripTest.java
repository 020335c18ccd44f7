package io.hami.model.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.model.Decoded;
import io.hami.model.device.MigPlacement;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.device.PairScore;
import io.hami.model.device.PairScoreJson;
import io.hami.model.handshake.Handshake;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import io.hami.model.pod.ScoringWeights;
import io.hami.model.resource.ContainerRequest;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.model.vendor.AscendRuntimeInfo;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Encode then decode gives the value back, for generated valid values. */
class RoundTripTest {

  private static final int RUNS = 2_000;

  @Test
  void registerJson() {
    Generators g = new Generators(1);
    for (int i = 0; i < RUNS; i++) {
      List<NodeDevice> devices = g.list(8, g::jsonDevice);
      String json = NodeDeviceJson.encode(devices);
      assertThat(NodeDeviceJson.decode(json)).as(json).isEqualTo(Decoded.ok(devices));
    }
  }

  @Test
  void registerColon() {
    Generators g = new Generators(2);
    for (int i = 0; i < RUNS; i++) {
      List<NodeDevice> devices = g.list(8, g::colonDevice);
      String v = NodeDeviceColon.encode(devices);
      if (devices.isEmpty()) {
        // the empty list encodes as "", which the reader rejects (no separator); ":" is the empty
        // form
        assertThat(NodeDeviceColon.decode(":")).isEqualTo(Decoded.ok(List.of()));
        continue;
      }
      assertThat(NodeDeviceColon.decode(v)).as(v).isEqualTo(Decoded.ok(devices));
    }
  }

  @Test
  void podDevices() {
    Generators g = new Generators(3);
    for (int i = 0; i < RUNS; i++) {
      PodDevices pod = g.pod();
      String v = PodDevicesCodec.encode(pod);
      List<List<ContainerDevice>> want = new ArrayList<>(pod.containers());
      want.add(List.of()); // the terminator leaves one empty entry behind
      assertThat(PodDevicesCodec.decode(v)).as(v).isEqualTo(Decoded.ok(new PodDevices(want)));
    }
  }

  @Test
  void pairScores() {
    Generators g = new Generators(4);
    for (int i = 0; i < RUNS; i++) {
      List<PairScore> scores =
          g.list(
              4,
              () -> {
                Map<String, Integer> m = new LinkedHashMap<>();
                for (int k = g.random().nextInt(5); k > 0; k--) {
                  m.put(g.any(12), g.anyInt());
                }
                return new PairScore(g.any(20), m);
              });
      String json = PairScoreJson.encode(scores);
      assertThat(PairScoreJson.decode(json)).as(json).isEqualTo(Decoded.ok(scores));
    }
  }

  @Test
  void migAllocations() {
    Generators g = new Generators(5);
    for (int i = 0; i < RUNS; i++) {
      List<MigAllocation> list =
          g.list(
              4,
              () ->
                  new MigAllocation(
                      g.anyInt(),
                      g.anyInt(),
                      g.any(20),
                      g.any(8),
                      new MigPlacement(g.anyInt(), g.anyInt()),
                      g.random().nextBoolean()
                          ? Optional.empty()
                          : Optional.of(
                              new MigAllocation.Instance(g.any(20), g.anyInt(), g.anyInt()))));
      String json = MigAllocationJson.encode(list);
      assertThat(MigAllocationJson.decode(json)).as(json).isEqualTo(Decoded.ok(list));
    }
  }

  @Test
  void ascendRuntimeInfo() {
    Generators g = new Generators(6);
    for (int i = 0; i < RUNS; i++) {
      List<AscendRuntimeInfo> list =
          g.list(4, () -> new AscendRuntimeInfo(g.any(20), g.any(12), g.anyInt(), g.anyInt()));
      assertThat(AscendRuntimeInfo.decode(AscendRuntimeInfo.encode(list)))
          .isEqualTo(Decoded.ok(list));
    }
  }

  @Test
  void nodeLocks() {
    Generators g = new Generators(7);
    for (int i = 0; i < RUNS; i++) {
      OffsetDateTime t =
          OffsetDateTime.of(
              1970 + g.random().nextInt(500),
              1 + g.random().nextInt(12),
              1 + g.random().nextInt(28),
              g.random().nextInt(24),
              g.random().nextInt(60),
              g.random().nextInt(60),
              0,
              ZoneOffset.ofTotalSeconds((g.random().nextInt(27 * 4) - 12 * 4) * 900));
      NodeLock lock =
          g.random().nextInt(4) == 0
              ? NodeLock.timeOnly(t)
              : NodeLock.of(
                  t, "ns-" + g.plain(10).replace(",", ""), "pod-" + g.plain(10).replace(",", ""));
      assertThat(NodeLock.decode(lock.encode())).as(lock.encode()).isEqualTo(Decoded.ok(lock));
    }
  }

  @Test
  void handshakeAndWeights() {
    Generators g = new Generators(8);
    for (int i = 0; i < RUNS; i++) {
      LocalDateTime t =
          LocalDateTime.of(
              2000 + g.random().nextInt(8000),
              1 + g.random().nextInt(12),
              1 + g.random().nextInt(28),
              g.random().nextInt(24),
              g.random().nextInt(60),
              g.random().nextInt(60));
      assertThat(Handshake.parse(Handshake.requesting(t)))
          .isEqualTo(new Handshake.Requesting(Optional.of(t)));
      assertThat(Handshake.parse(Handshake.deleted(t)))
          .isEqualTo(new Handshake.Deleted(Optional.of(t)));
      ScoringWeights w =
          new ScoringWeights(g.nonNegative(), g.nonNegative(), 1 + g.random().nextInt(100));
      assertThat(ScoringWeights.decode(w.encode())).isEqualTo(Decoded.ok(w));
    }
  }

  @Test
  void requestDerivation() {
    Generators g = new Generators(9);
    for (int i = 0; i < RUNS; i++) {
      int factor = 1 + g.random().nextInt(4);
      RequestRule rule = new RequestRule(ResourceNames.NVIDIA, "NVIDIA", factor, 0, 0);
      int nums = 1 + g.random().nextInt(16);
      int mem = g.random().nextInt(Integer.MAX_VALUE / factor);
      int pct = 1 + g.random().nextInt(100);
      int cores = g.random().nextInt(101);
      Map<String, String> limits = new LinkedHashMap<>();
      limits.put("nvidia.com/gpu", Integer.toString(nums));
      limits.put("nvidia.com/gpucores", Integer.toString(cores));
      boolean byMem = g.random().nextBoolean();
      limits.put(
          byMem ? "nvidia.com/gpumem" : "nvidia.com/gpumem-percentage",
          Integer.toString(byMem ? mem : pct));
      ContainerRequest want =
          byMem
              ? new ContainerRequest(
                  nums,
                  "NVIDIA",
                  mem * factor,
                  mem == 0 ? 100 : ContainerRequest.PERCENT_UNSET,
                  cores)
              : new ContainerRequest(nums, "NVIDIA", 0, pct, cores);
      assertThat(rule.derive(ContainerResources.ofLimits(limits)))
          .as(limits.toString())
          .isEqualTo(Decoded.ok(want));
    }
  }
}
