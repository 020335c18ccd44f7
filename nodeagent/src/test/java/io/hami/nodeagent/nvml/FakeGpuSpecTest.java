package io.hami.nodeagent.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FakeGpuSpecTest {

  @Test
  void spreadsGpusOverNumaNodes() {
    List<GpuInfo> gpus = FakeGpuSpec.parse("8xNVIDIA-H200:143771MiB,numa=0-1", "n");
    assertThat(gpus).extracting(GpuInfo::numaNode).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(gpus).extracting(GpuInfo::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(gpus).allMatch(g -> g.model().equals("NVIDIA-H200") && g.memoryMiB() == 143771);
    assertThat(gpus).extracting(GpuInfo::uuid).doesNotHaveDuplicates();
    assertThat(gpus.get(0).uuid()).isEqualTo(FakeGpuSpec.parse("1xA:1MiB", "n").get(0).uuid());
  }

  @Test
  void groupsAndGibibytes() {
    List<GpuInfo> gpus = FakeGpuSpec.parse("2xTesla T4:16GiB+1xA100:40960MiB,numa=3", "n");
    assertThat(gpus).extracting(GpuInfo::model).containsExactly("Tesla T4", "Tesla T4", "A100");
    assertThat(gpus).extracting(GpuInfo::memoryMiB).containsExactly(16384L, 16384L, 40960L);
    assertThat(gpus).extracting(GpuInfo::numaNode).containsExactly(0, 0, 3);
    assertThat(gpus).extracting(GpuInfo::index).containsExactly(0, 1, 2);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''|empty fake GPU spec",
        "8xH200|is not <count>x<model>",
        "0xH200:1MiB|count must be 1..64",
        "2xH200:10MB|is not <count>x<model>",
        "2xH200:10MiB,numa=1-0|numa range is reversed",
        "2xH200:10MiB,numa=a|'a' is not a number",
        "2xH200:10MiB,mig=1|unknown fake GPU option 'mig'",
      })
  void rejects(String spec, String message) {
    assertThatThrownBy(() -> FakeGpuSpec.parse(spec, "n")).hasMessageContaining(message);
  }
}
