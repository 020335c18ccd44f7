package io.hami.model.pod;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.model.Decoded;
import io.hami.model.device.MigPlacement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Spec §8.3: dynamic MIG allocations. */
class MigAllocationJsonTest {

  @Test
  void schedulerFieldsExact() {
    String json =
        "[{\"containerIndex\":0,\"deviceIndex\":0,\"gpuUUID\":\"GPU-aaa\",\"profile\":\"1g.10gb\","
            + "\"placement\":{\"start\":0,\"size\":1}}]";
    MigAllocation a =
        new MigAllocation(0, 0, "GPU-aaa", "1g.10gb", new MigPlacement(0, 1), Optional.empty());
    assertThat(MigAllocationJson.encode(List.of(a))).isEqualTo(json);
    assertThat(MigAllocationJson.decode(json)).isEqualTo(Decoded.ok(List.of(a)));
  }

  @Test
  void runtimeFieldsRoundTrip() {
    MigAllocation a =
        new MigAllocation(
            1,
            2,
            "GPU-b",
            "3g.20gb",
            new MigPlacement(4, 4),
            Optional.of(new MigAllocation.Instance("MIG-x", 2, 0)));
    assertThat(MigAllocationJson.decode(MigAllocationJson.encode(List.of(a))))
        .isEqualTo(Decoded.ok(List.of(a)));
  }

  @Test
  void partialRuntimeFieldsRejected() {
    assertThat(
            MigAllocationJson.decode("[{\"gpuUUID\":\"g\",\"migUUID\":\"MIG-x\"}]")
                .failure()
                .orElseThrow()
                .field())
        .isEqualTo("[0].migUUID");
  }
}
