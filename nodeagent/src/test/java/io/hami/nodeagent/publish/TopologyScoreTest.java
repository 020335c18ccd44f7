package io.hami.nodeagent.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.nvml.FakeNvml;
import io.hami.nodeagent.nvml.GpuInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyScoreTest {
  static final List<GpuInfo> GPUS =
      List.of(
          new GpuInfo(0, "GPU-0", "A100", 40960, "00000000:18:00.0", 0, false),
          new GpuInfo(1, "GPU-1", "A100", 40960, "00000000:19:00.0", 0, false),
          new GpuInfo(2, "GPU-2", "A100", 40960, "00000000:3B:00.0", 1, false));

  static List<Gpu> gpus() {
    return GPUS.stream().map(Gpu::healthy).toList();
  }

  @Test
  void pcieLinkPlusOneHundredPerNvLink() throws Exception {
    FakeNvml nvml = new FakeNvml(GPUS).withNvLinks(0, 1, 2);

    String json = TopologyScore.encode(gpus(), TopologyScore.compute(nvml, gpus()));

    // Host bridge 30 + 2 NVLinks; same NUMA without NVLink 30; across CPUs 10. Keys sorted as Go
    // does.
    assertThat(json)
        .isEqualTo(
            "[{\"uuid\":\"GPU-0\",\"score\":{\"GPU-1\":230,\"GPU-2\":10}},"
                + "{\"uuid\":\"GPU-1\",\"score\":{\"GPU-0\":230,\"GPU-2\":10}},"
                + "{\"uuid\":\"GPU-2\",\"score\":{\"GPU-0\":10,\"GPU-1\":10}}]");
  }

  @Test
  void asymmetricLinksScoreZero() throws Exception {
    FakeNvml nvml = new FakeNvml(GPUS).withOneWayNvLinks(0, 2, 1);

    List<TopologyScore.Pair> pairs = TopologyScore.compute(nvml, gpus());

    assertThat(pairs)
        .contains(
            new TopologyScore.Pair("GPU-0", "GPU-2", 0),
            new TopologyScore.Pair("GPU-2", "GPU-0", 0));
    assertThat(pairs).contains(new TopologyScore.Pair("GPU-0", "GPU-1", 30));
  }
}
