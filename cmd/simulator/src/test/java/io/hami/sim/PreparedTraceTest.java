package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hami.plugins.fgd.TargetWorkload;
import io.hami.plugins.fgd.TaskShape;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

final class PreparedTraceTest {

  static Stream<Arguments> emptyClusterFragmentation() {
    // fgd.md §1.4: the fragmentation of the empty cluster against each trace's target workload.
    return Stream.of(Arguments.of("default", 13.94), Arguments.of("multigpu50", 14.73));
  }

  @ParameterizedTest(name = "{0}: {1}%")
  @MethodSource
  void emptyClusterFragmentation(String trace, double want) throws Exception {
    PreparedTrace t = PreparedTrace.of(BundledTraces.trace(trace));
    assertThat(t.emptyFragmentationRate()).isCloseTo(want, within(0.01));
  }

  @Test
  void defaultTrace_targetWorkloadMatchesThePaper() throws Exception {
    PreparedTrace t = PreparedTrace.of(BundledTraces.trace("default"));
    TargetWorkload w = t.workload();
    assertThat(t.shapeCount()).isEqualTo(91);
    assertThat(w.size()).isEqualTo(35);
    assertThat(100.0 * w.totalWeight() / t.pods().size()).isCloseTo(95.26, within(0.005));
    assertThat(w.shapes().get(0)).isEqualTo(new TaskShape(3152, 810, 1, 0));
    assertThat((double) w.weight(0) / w.totalWeight()).isCloseTo(0.1348, within(0.00005));
    double cpuOnly = 0;
    for (int i = 0; i < w.size(); i++) {
      if (w.shapes().get(i).isCpuOnly()) {
        cpuOnly += (double) w.weight(i) / w.totalWeight();
      }
    }
    assertThat(cpuOnly).isCloseTo(0.136, within(0.0005));
  }

  @Test
  void bundledNodes_matchThePaperCluster() throws Exception {
    Trace t = BundledTraces.trace("default");
    assertThat(t.nodes()).hasSize(1213);
    assertThat(t.gpuCapacityMilli()).isEqualTo(6_212_000);
    assertThat(t.pods()).hasSize(8152);
    assertThat(t.gpuRequestMilli()).isEqualTo(6_086_800);
  }

  @Test
  void modelConstraints_matchNodeModelsBySubstringIgnoringCase() throws Exception {
    Trace t =
        new Trace(
            "t",
            List.of(
                new TraceNode("a", 8000, 1024, 1, "NVIDIA-Tesla T4"),
                new TraceNode("b", 8000, 1024, 1, "V100M32")),
            List.of(
                new TracePod("p1", 100, 1, 1, 500, "t4", List.of("t4")),
                new TracePod("p2", 100, 1, 1, 500, "A100", List.of("A100")),
                new TracePod("p3", 100, 1, 1, 500, "", List.of())));
    PreparedTrace p = PreparedTrace.of(t);
    assertThat(p.task(0).modelMask()).isEqualTo(0b01);
    assertThat(p.task(1).modelMask()).isNotZero().isNotEqualTo(0b01).isNotEqualTo(0b10);
    assertThat(p.task(2).modelMask()).isZero();
  }
}
