package io.hami.model.explain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import io.hami.model.ProtocolError;
import io.hami.model.explain.ScheduleRecord.Failed;
import io.hami.model.explain.ScheduleRecord.NodeReasons;
import io.hami.model.explain.ScheduleRecord.NodeScore;
import io.hami.model.explain.ScheduleRecord.ReasonCount;
import io.hami.model.explain.ScheduleRecord.Scheduled;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ScheduleRecordCodecTest {

  private static final Instant T = Instant.parse("2026-11-29T13:53:11Z");

  static Stream<Arguments> roundTrips() {
    return Stream.of(
        arguments(
            "unschedulable with counts and closest nodes",
            new Failed(
                T,
                "Unschedulable",
                null,
                12,
                List.of(
                    new ReasonCount("CardInsufficientMemory", 10),
                    new ReasonCount("node(s) had untolerated taint", 2)),
                0,
                List.of(
                    new NodeReasons("gpu-1", List.of("CardInsufficientMemory")),
                    new NodeReasons(
                        "gpu-2", List.of("CardInsufficientMemory", "CardUuidMismatch"))))),
        arguments(
            "binding failure names the node",
            new Failed(
                T,
                "Unschedulable",
                "gpu-1",
                3,
                List.of(new ReasonCount("node gpu-1 is locked by ns/holder", 1)),
                0,
                List.of())),
        arguments(
            "scheduler error with omitted reasons",
            new Failed(T, "SchedulerError", null, 0, List.of(), 4, List.of())),
        arguments(
            "preemption nominated a node and evicted pods",
            new Failed(
                T,
                "Unschedulable",
                null,
                2,
                List.of(new ReasonCount("CardInsufficientMemory", 2)),
                0,
                List.of(),
                new ScheduleRecord.Preemption("gpu-1", List.of("team/a", "team/b"), 3))),
        arguments(
            "scheduled after scoring",
            new Scheduled(
                T,
                "gpu-3",
                187L,
                "binpack",
                "spread",
                12,
                12,
                List.of(
                    new NodeScore("gpu-3", 187),
                    new NodeScore("gpu-1", 150),
                    new NodeScore("gpu-7", -3)))),
        arguments(
            "scheduled on the only feasible node",
            new Scheduled(T, "gpu-3", null, "spread", "binpack,numa", 1, 40, List.of())),
        arguments(
            "quotes and non-ASCII survive",
            new Failed(
                T,
                "Unschedulable",
                null,
                1,
                List.of(new ReasonCount("node(s) had taint {k: \"v\"} <é>", 1)),
                0,
                List.of(new NodeReasons("nœud-1", List.of("x\\y"))))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("roundTrips")
  void roundTrip(String name, ScheduleRecord record) {
    String wire = ScheduleRecordCodec.encode(record);

    assertThat(wire.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ScheduleRecordCodec.MAX_BYTES);
    assertThat(ScheduleRecordCodec.decode(wire)).isEqualTo(Decoded.ok(record));
  }

  @Test
  void encode_writesTheDocumentedForm() {
    assertThat(
            ScheduleRecordCodec.encode(
                new Failed(
                    T,
                    "Unschedulable",
                    null,
                    2,
                    List.of(new ReasonCount("CardInsufficientMemory", 2)),
                    0,
                    List.of(new NodeReasons("a", List.of("CardInsufficientMemory"))))))
        .isEqualTo(
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"nodes\":2,"
                + "\"reasons\":{\"CardInsufficientMemory\":2},\"closest\":{\"a\":[\"CardInsufficientMemory\"]}}");
    assertThat(
            ScheduleRecordCodec.encode(
                new Scheduled(
                    T.plusMillis(700),
                    "a",
                    90L,
                    "binpack",
                    "spread",
                    2,
                    2,
                    List.of(new NodeScore("a", 90)))))
        .isEqualTo(
            "{\"v\":1,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\",\"node\":\"a\",\"score\":90,"
                + "\"nodePolicy\":\"binpack\",\"gpuPolicy\":\"spread\",\"feasible\":2,\"evaluated\":2,\"top\":{\"a\":90}}");
  }

  @Test
  void encode_capsSize_droppingClosestNodesFirstThenRareReasons() throws Exception {
    List<ReasonCount> reasons = new ArrayList<>();
    List<NodeReasons> closest = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      reasons.add(new ReasonCount("reason number " + i + " " + "x".repeat(300), 40 - i));
      closest.add(new NodeReasons("node-" + "n".repeat(240) + i, List.of("r".repeat(500))));
    }
    Failed big =
        new Failed(T, "Unschedulable", "chosen-" + "c".repeat(400), 5000, reasons, 0, closest);

    String wire = ScheduleRecordCodec.encode(big);

    assertThat(wire.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ScheduleRecordCodec.MAX_BYTES);
    Failed back = (Failed) ScheduleRecordCodec.decode(wire).orElseThrow();
    assertThat(back.closest()).isEmpty();
    assertThat(back.reasons()).isNotEmpty();
    assertThat(back.reasons().get(0).nodes()).isEqualTo(40);
    assertThat(back.reasons().get(0).reason())
        .hasSize(ScheduleRecordCodec.MAX_REASON_CHARS)
        .endsWith("...");
    assertThat(back.reasons().size() + back.omittedReasons()).isEqualTo(40);
    assertThat(back.node()).hasSize(ScheduleRecordCodec.MAX_NAME_CHARS);
    assertThat(back.nodes()).isEqualTo(5000);
  }

  @Test
  void encode_capsVictims_keepingTheNomination() throws Exception {
    List<String> victims = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      victims.add("namespace-" + i + "/" + "v".repeat(150));
    }
    String s =
        ScheduleRecordCodec.encode(
            new Failed(
                T,
                "Unschedulable",
                null,
                2,
                List.of(new ReasonCount("CardInsufficientMemory", 2)),
                0,
                List.of(),
                new ScheduleRecord.Preemption("gpu-1", victims, 0)));
    assertThat(s.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ScheduleRecordCodec.MAX_BYTES);
    Failed back = (Failed) ((Decoded.Ok<ScheduleRecord>) ScheduleRecordCodec.decode(s)).value();
    ScheduleRecord.Preemption p = back.preemption();
    assertThat(p).isNotNull();
    assertThat(p.nominatedNode()).isEqualTo("gpu-1");
    assertThat(p.victims().size() + p.omittedVictims()).isEqualTo(20);
    assertThat(back.reasons()).hasSize(1);
  }

  @Test
  void encode_capsSize_forMultiByteText() throws Exception {
    List<ReasonCount> reasons = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      reasons.add(new ReasonCount(i + "节点".repeat(100), 1));
    }
    String wire =
        ScheduleRecordCodec.encode(new Failed(T, "Unschedulable", null, 10, reasons, 0, List.of()));

    assertThat(wire.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ScheduleRecordCodec.MAX_BYTES);
    Failed back = (Failed) ScheduleRecordCodec.decode(wire).orElseThrow();
    assertThat(back.reasons().size() + back.omittedReasons()).isEqualTo(10);
  }

  @Test
  void encode_capsScheduled_droppingLastCandidates() throws Exception {
    List<NodeScore> top = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      top.add(new NodeScore("n".repeat(250) + i, 100 - i));
    }
    String wire =
        ScheduleRecordCodec.encode(
            new Scheduled(T, "n".repeat(250) + "0", 100L, "binpack", "p".repeat(5000), 9, 9, top));

    assertThat(wire.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(ScheduleRecordCodec.MAX_BYTES);
    Scheduled back = (Scheduled) ScheduleRecordCodec.decode(wire).orElseThrow();
    assertThat(back.top()).isNotEmpty().hasSizeLessThan(ScheduleRecordCodec.MAX_TOP);
    assertThat(back.top().get(0)).isEqualTo(top.get(0));
    assertThat(back.gpuPolicy()).hasSize(ScheduleRecordCodec.MAX_POLICY_CHARS);
  }

  @Test
  void cut_neverSplitsASurrogatePair() {
    String s = "a".repeat(6) + "😀" + "b".repeat(10);
    assertThat(ScheduleRecordCodec.cut(s, 10)).isEqualTo("aaaaaa...");
    assertThat(ScheduleRecordCodec.cut("short", 10)).isEqualTo("short");
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        arguments("not JSON", "Unschedulable: 3 nodes", ""),
        arguments("a list", "[1,2]", ""),
        arguments(
            "no version",
            "{\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\",\"node\":\"a\"}",
            "v"),
        arguments(
            "version zero",
            "{\"v\":0,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\"}",
            "v"),
        arguments("no result", "{\"v\":1,\"time\":\"2026-11-29T13:53:11Z\"}", "result"),
        arguments(
            "bad time", "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"yesterday\"}", "time"),
        arguments(
            "scheduled without node",
            "{\"v\":1,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\"}",
            "node"),
        arguments(
            "reasons as a list",
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"reasons\":[]}",
            "reasons"),
        arguments(
            "count not a number",
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"reasons\":{\"r\":\"3\"}}",
            "reasons.r"),
        arguments(
            "count with a fraction",
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"reasons\":{\"r\":1.5}}",
            "reasons.r"),
        arguments(
            "closest reasons not a list",
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"closest\":{\"n\":\"r\"}}",
            "closest.n"),
        arguments(
            "negative node count",
            "{\"v\":1,\"result\":\"Unschedulable\",\"time\":\"2026-11-29T13:53:11Z\",\"nodes\":-1}",
            "nodes"),
        arguments(
            "huge score",
            "{\"v\":1,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11Z\",\"node\":\"a\",\"score\":1e3}",
            "score"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void decode_reportsTheField(String name, String value, String field) {
    Decoded<ScheduleRecord> d = ScheduleRecordCodec.decode(value);

    assertThat(d.isOk()).as("decoded %s", value).isFalse();
    ProtocolError e = d.failure().orElseThrow();
    assertThat(e.field()).isEqualTo(field);
    assertThat(e.message()).isNotBlank();
  }

  @Test
  void decode_ignoresUnknownFieldsAndLaterVersions() {
    Decoded<ScheduleRecord> d =
        ScheduleRecordCodec.decode(
            "{\"v\":2,\"result\":\"Scheduled\",\"time\":\"2026-11-29T13:53:11.250Z\",\"node\":\"a\",\"extra\":{\"x\":[1]}}");

    assertThat(d)
        .isEqualTo(
            Decoded.ok(
                new Scheduled(
                    Instant.parse("2026-11-29T13:53:11.250Z"),
                    "a",
                    null,
                    "",
                    "",
                    0,
                    0,
                    List.of())));
  }
}
