package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PromTextTest {
  private static final String TEXT =
      """
      # HELP hami_scheduler_client_requests_total Requests.
      # TYPE hami_scheduler_client_requests_total counter
      hami_scheduler_client_requests_total{code="201",resource="pods/binding",verb="create"} 10.0
      hami_scheduler_client_requests_total{code="200",resource="pods",verb="patch"} 12.0
      hami_scheduler_client_requests_total{code="409",resource="nodes",verb="patch"} 1.0
      hami_scheduler_client_requests_total{code="200",resource="nodes",verb="patch"} 10.0
      jvm_memory_used_bytes{area="heap"} 1.048576E8
      jvm_memory_used_bytes{area="nonheap"} 5.0E7
      process_cpu_seconds_total 3.5
      weird{a="x\\"y,z"} 2
      garbage line
      """;

  @Test
  void parse_readsLabelsAndValues() {
    PromText t = PromText.parse(TEXT);
    assertThat(t.sum("process_cpu_seconds_total")).isEqualTo(3.5);
    assertThat(t.sum("jvm_memory_used_bytes", l -> "heap".equals(l.get("area"))))
        .isEqualTo(104_857_600);
    assertThat(t.sum("hami_scheduler_client_requests_total", l -> "patch".equals(l.get("verb"))))
        .isEqualTo(23);
    assertThat(t.samples())
        .anySatisfy(s -> assertThat(s.labels()).isEqualTo(Map.of("a", "x\"y,z")));
  }

  @Test
  void requestDelta_perVerbAndResourceAcrossCodes() {
    PromText before =
        PromText.parse(
            "hami_scheduler_client_requests_total{code=\"200\",resource=\"nodes\",verb=\"patch\"} 4\n");
    Map<String, Double> d = PhaseFigures.requestDelta(before, PromText.parse(TEXT));
    assertThat(d)
        .containsEntry("create pods/binding", 10.0)
        .containsEntry("patch pods", 12.0)
        .containsEntry("patch nodes", 7.0);
  }

  @Test
  void internals_jitSecondsBetweenScrapes() {
    PromText before = PromText.parse("jvm_compilation_time_seconds_total 12.5\n");
    PromText after = PromText.parse("jvm_compilation_time_seconds_total 14.0\n");
    assertThat(PhaseFigures.internals(before, after)).containsEntry("jitSeconds", 1.5);
  }
}
