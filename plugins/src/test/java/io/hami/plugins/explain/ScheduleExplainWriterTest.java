package io.hami.plugins.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.framework.api.FailedAttempt;
import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecord.NodeReasons;
import io.hami.model.explain.ScheduleRecord.ReasonCount;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.plugins.vgpu.SharedGpuState;
import io.hami.plugins.vgpu.VgpuArgs;
import io.hami.plugins.vgpu.VgpuPlugin;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScheduleExplainWriterTest {
  private static final Instant T = Instant.parse("2026-11-29T13:53:11Z");

  @Test
  void failed_writesTheDiagnosisAsTheScheduleExplainRecord() throws Exception {
    Diagnosis d =
        new Diagnosis(
            T,
            "Unschedulable",
            null,
            3,
            List.of(new FailedAttempt.ReasonCount("CardInsufficientMemory", 2)),
            List.of(new FailedAttempt.NodeReasons("n1", List.of("CardInsufficientMemory"))));
    FailedAttempt attempt =
        new FailedAttempt(
            MakePod.named("p").obj(), Status.unschedulable("x"), "0/3 nodes are available.", d);

    Map<String, String> annotations = ScheduleExplainWriter.INSTANCE.failed(attempt);

    assertThat(annotations).containsOnlyKeys(Annotations.SCHEDULE_EXPLAIN);
    assertThat(
            ScheduleRecordCodec.decode(annotations.get(Annotations.SCHEDULE_EXPLAIN)).orElseThrow())
        .isEqualTo(
            new ScheduleRecord.Failed(
                T,
                "Unschedulable",
                null,
                3,
                List.of(new ReasonCount("CardInsufficientMemory", 2)),
                0,
                List.of(new NodeReasons("n1", List.of("CardInsufficientMemory")))));
  }

  @Test
  void failed_keepsTheNodeOfALaterStep() {
    Diagnosis d =
        new Diagnosis(
            T,
            "Unschedulable",
            "n1",
            3,
            List.of(new FailedAttempt.ReasonCount("node n1 is locked by ns/p", 1)),
            List.of());

    ScheduleRecord.Failed r = ScheduleExplainWriter.record(d);

    assertThat(r.node()).isEqualTo("n1");
    assertThat(r.reasons()).containsExactly(new ReasonCount("node n1 is locked by ns/p", 1));
  }

  @Test
  void theVgpuPlugin_registersTheWriterWithItsProfile() {
    FakeHandle handle = new FakeHandle();

    VgpuPlugin.create(VgpuArgs.DEFAULTS, handle, new SharedGpuState());

    assertThat(handle.attemptObservers()).singleElement().isInstanceOf(ScheduleExplainWriter.class);
  }

  @Test
  void failed_refinesTheClosestNodesCodesWithTheirDevices() throws Exception {
    Diagnosis d =
        new Diagnosis(
            T,
            "Unschedulable",
            null,
            2,
            List.of(
                new FailedAttempt.ReasonCount("CardInsufficientMemory", 2),
                new FailedAttempt.ReasonCount("CardUuidMismatch", 1)),
            List.of(
                new FailedAttempt.NodeReasons(
                    "n1", List.of("CardInsufficientMemory", "CardUuidMismatch")),
                new FailedAttempt.NodeReasons(
                    "n2", List.of("CardInsufficientMemory", "node(s) had untolerated taint"))));
    NodeDetail detail =
        (pod, node) ->
            node.equals("n1")
                ? List.of("1/4 CardInsufficientMemory", "3/4 CardUuidMismatch")
                : List.of(
                    "2/2 CardInsufficientMemory (cards of up to 81920 MiB, at most 900 MiB free)");
    FailedAttempt attempt =
        new FailedAttempt(
            MakePod.named("p").obj(), Status.unschedulable("x"), "0/2 nodes are available.", d);

    Map<String, String> annotations = new ScheduleExplainWriter(detail).failed(attempt);

    ScheduleRecord.Failed r =
        (ScheduleRecord.Failed)
            ScheduleRecordCodec.decode(annotations.get(Annotations.SCHEDULE_EXPLAIN)).orElseThrow();
    assertThat(r.closest())
        .containsExactly(
            new NodeReasons("n1", List.of("1/4 CardInsufficientMemory", "3/4 CardUuidMismatch")),
            new NodeReasons(
                "n2",
                List.of(
                    "2/2 CardInsufficientMemory (cards of up to 81920 MiB, at most 900 MiB free)",
                    "node(s) had untolerated taint")));
    // The per-reason node counts stay as the scheduler's message has them.
    assertThat(r.reasons())
        .containsExactly(
            new ReasonCount("CardInsufficientMemory", 2), new ReasonCount("CardUuidMismatch", 1));
  }
}
