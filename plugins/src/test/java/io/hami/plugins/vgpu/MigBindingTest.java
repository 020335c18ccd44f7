package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import io.hami.model.Annotations;
import io.hami.model.device.MigPlacement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Protocol §8.3: the {@code hami.io/vgpu-mig-allocations} annotation written with the placement.
 */
final class MigBindingTest {

  record Case(String name, List<List<DevicePick>> containers, @Nullable String want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static DevicePick mig(String id, String profile, int start, int size, int mem) {
    return new DevicePick(
        id, "NVIDIA", mem, 0, new DevicePick.Mig(profile, new MigPlacement(start, size)));
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "one instance",
            List.of(List.of(mig("GPU-aaa", "1g.10gb", 0, 1, 9984))),
            "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-aaa\",\"profile\":\"1g.10gb\","
                + "\"placement\":{\"start\":0,\"size\":1}}]"),
        new Case(
            "two instances on one GPU",
            List.of(
                List.of(
                    mig("GPU-aaa", "2g.10gb", 0, 2, 9856), mig("GPU-aaa", "2g.10gb", 2, 2, 9856))),
            "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-aaa\",\"profile\":\"2g.10gb\","
                + "\"placement\":{\"start\":0,\"size\":2}},"
                + "{\"containerIndex\":0,\"deviceIndex\":1,\"gpuUUID\":\"GPU-aaa\",\"profile\":\"2g.10gb\","
                + "\"placement\":{\"start\":2,\"size\":2}}]"),
        new Case(
            "second container, after a shared device",
            List.of(
                List.of(),
                List.of(
                    new DevicePick("GPU-s", "NVIDIA", 512, 10),
                    mig("GPU-b", "3g.20gb", 4, 4, 19968))),
            "[{\"containerIndex\":1,\"deviceIndex\":1,\"gpuUUID\":\"GPU-b\",\"profile\":\"3g.20gb\","
                + "\"placement\":{\"start\":4,\"size\":4}}]"),
        new Case(
            "no MIG pick, no annotation",
            List.of(List.of(new DevicePick("GPU-s", "NVIDIA", 512, 10))),
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void annotation(Case c) {
    ImmutableList<ImmutableList<DevicePick>> containers =
        c.containers().stream().map(ImmutableList::copyOf).collect(ImmutableList.toImmutableList());
    Placement p =
        new Placement("node-a", containers, PodUsage.collapse(containers, 0, false), null);
    Map<String, String> annos = BindingAnnotations.of(p, 1_705_054_796L);
    assertThat(annos.get(Annotations.VGPU_MIG_ALLOCATIONS)).isEqualTo(c.want());
    assertThat(annos).containsKey(Annotations.VGPU_DEVICES_ALLOCATED);
  }
}
