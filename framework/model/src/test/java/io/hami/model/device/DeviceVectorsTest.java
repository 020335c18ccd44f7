package io.hami.model.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Spec §1.4, §10.2 V19 and §10.11 V81, V82, V86: pair scores and device IDs. */
class DeviceVectorsTest {

  @Test
  void v19_pairScoresDecode() {
    String json = "[{\"uuid\":\"GPU-0\",\"score\":{\"GPU-1\":50,\"GPU-2\":20,\"GPU-3\":20}}]";
    Decoded<List<PairScore>> d = PairScoreJson.decode(json);
    assertThat(d)
        .isEqualTo(
            Decoded.ok(
                List.of(new PairScore("GPU-0", Map.of("GPU-1", 50, "GPU-2", 20, "GPU-3", 20)))));
    assertThat(PairScoreJson.encode(d.toOptional().orElseThrow())).isEqualTo(json);
  }

  @Test
  void pairScoreErrors() {
    assertThat(
            PairScoreJson.decode("[{\"uuid\":\"a\",\"score\":{\"b\":\"x\"}}]")
                .failure()
                .orElseThrow()
                .field())
        .isEqualTo("[0].score.b");
    assertThat(PairScoreJson.decode("{}").isOk()).isFalse();
  }

  static Stream<Arguments> physical() {
    String u = "GPU-03f69c50-207a-2038-9b45-23cac89cb67a";
    return Stream.of(
        arguments("V81 replica 0", u + "-0", u),
        arguments("V81 replica 10", u + "-10", u),
        arguments("V81 time-slicing suffix", u + "::replica-1", u),
        arguments("V81 plain", u, u),
        arguments(
            "V81 other plain",
            "GPU-03f69c50-207a-2038-9b45-23cac89cb123",
            "GPU-03f69c50-207a-2038-9b45-23cac89cb123"),
        arguments("non-digit suffix kept", u + "-x", u + "-x"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("physical")
  void v81_physicalId(String name, String id, String want) {
    assertThat(DeviceIds.physicalId(id)).isEqualTo(want);
  }

  @Test
  void v82_replicaIds() {
    assertThat(DeviceIds.replicas("GPU-uuid-1", 2)).containsExactly("GPU-uuid-1-0", "GPU-uuid-1-1");
    assertThat(DeviceIds.replicas("MIG-GPU-uuid-1[0]", 4)).containsExactly("MIG-GPU-uuid-1[0]");
  }

  private static List<LinkType> nv(int k) {
    return new ArrayList<>(Collections.nCopies(k, LinkType.NVLINK));
  }

  @Test
  void v86_nvlinkMatrix() {
    int[][] links = {{0, 1, 1, 2}, {1, 0, 2, 1}, {1, 2, 0, 2}, {2, 1, 2, 0}};
    int[][] want = {{0, 100, 100, 200}, {100, 0, 200, 100}};
    for (int a = 0; a < 2; a++) {
      for (int b = 0; b < 4; b++) {
        if (a != b) {
          assertThat(LinkType.pairScore(nv(links[a][b]), nv(links[b][a])))
              .isEqualTo(new LinkType.PairLinkScore(want[a][b], false));
        }
      }
    }
  }

  @Test
  void v86_asymmetric() {
    List<LinkType> forward = nv(4);
    forward.add(0, LinkType.NODE);
    assertThat(LinkType.pairScore(forward, List.of(LinkType.NODE)))
        .isEqualTo(new LinkType.PairLinkScore(0, true));
  }

  @Test
  void linkScoresTable() {
    assertThat(List.of(LinkType.values()).stream().map(LinkType::score).toList())
        .containsExactly(10, 20, 30, 40, 50, 60, 100);
  }
}
