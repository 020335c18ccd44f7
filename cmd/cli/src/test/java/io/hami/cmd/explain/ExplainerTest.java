package io.hami.cmd.explain;

import static io.hami.cmd.explain.Fixtures.NOW;
import static io.hami.cmd.explain.Fixtures.bound;
import static io.hami.cmd.explain.Fixtures.event;
import static io.hami.cmd.explain.Fixtures.facts;
import static io.hami.cmd.explain.Fixtures.lockedNode;
import static io.hami.cmd.explain.Fixtures.node;
import static io.hami.cmd.explain.Fixtures.pod;
import static io.hami.cmd.explain.Fixtures.unschedulable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.cmd.explain.Explanation.Device;
import io.hami.cmd.explain.Explanation.Problem;
import io.hami.cmd.explain.Explanation.State;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ExplainerTest {
  private static final Instant T = Instant.parse("2026-11-29T13:59:30Z");
  private static final String DEV = "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448";

  private static String scheduled(String node) {
    return ScheduleRecordCodec.encode(
        new ScheduleRecord.Scheduled(
            T,
            node,
            187L,
            "binpack",
            "spread",
            3,
            4,
            List.of(
                new ScheduleRecord.NodeScore(node, 187),
                new ScheduleRecord.NodeScore("gpu-b", 150))));
  }

  private static String failed(String node, String reason, int count) {
    return ScheduleRecordCodec.encode(
        new ScheduleRecord.Failed(
            T,
            "Unschedulable",
            node,
            3,
            List.of(new ScheduleRecord.ReasonCount(reason, count)),
            0,
            node != null
                ? List.of()
                : List.of(new ScheduleRecord.NodeReasons("gpu-a", List.of(reason)))));
  }

  private static Pod scheduledPod() {
    return bound(pod("team", "train"), "gpu-a")
        .editMetadata()
        .addToAnnotations(Annotations.VGPU_NODE, "gpu-a")
        .addToAnnotations(Annotations.VGPU_TIME, "1795960770")
        .addToAnnotations(Annotations.VGPU_DEVICES_ALLOCATED, ";" + DEV + ",NVIDIA,4000,30:;")
        .addToAnnotations(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";;")
        .addToAnnotations(Annotations.BIND_PHASE, "success")
        .addToAnnotations(Annotations.BIND_TIME, "1795960771")
        .addToAnnotations(Annotations.SCHEDULE_EXPLAIN, scheduled("gpu-a"))
        .endMetadata()
        .build();
  }

  @Test
  void scheduledPod_namesNodeDevicesPolicyAndScores() {
    Pod pod = scheduledPod();
    Explanation e =
        Explainer.explain(
            facts(
                pod,
                List.of(
                    event(
                        pod,
                        "Normal",
                        "Scheduled",
                        "Successfully assigned team/train to gpu-a",
                        "2026-11-29T13:59:31Z")),
                Map.of("gpu-a", Optional.of(node("gpu-a", Map.of()))),
                Map.of()),
            NOW);

    assertThat(e.state()).isEqualTo(State.SCHEDULED);
    assertThat(e.summary()).isEqualTo("bound to gpu-a (bind-phase success)");
    assertThat(e.devices())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.container()).isEqualTo("cuda");
              assertThat(c.annotation()).isEqualTo(Annotations.VGPU_DEVICES_ALLOCATED);
              assertThat(c.devices()).containsExactly(new Device(DEV, "NVIDIA", 4000, 30, false));
            });
    assertThat(e.placement().node()).isEqualTo("gpu-a");
    assertThat(e.attemptIsStale()).isFalse();
    assertThat(e.problems()).isEmpty();

    String text = TextReport.render(e, NOW);
    assertThat(text)
        .contains("Result:         bound to gpu-a (bind-phase success)")
        .contains("  Node:         gpu-a, score 187")
        .contains("  Policy:       node binpack, GPU spread")
        .contains("  Candidates:   3 feasible of 4 evaluated")
        .contains("187    gpu-a  <- chosen", "150    gpu-b")
        .contains("Container cuda (hami.io/vgpu-devices-allocated):")
        .contains(DEV + "  NVIDIA  4000 MiB  30% cores  handed out")
        .contains("gpu-a (the pod's node): unlocked")
        .contains("Scheduled", "Successfully assigned team/train to gpu-a");
  }

  @Test
  void scheduledPod_asJson() {
    Pod pod = scheduledPod();
    Explanation e =
        Explainer.explain(
            facts(pod, List.of(), Map.of("gpu-a", Optional.of(node("gpu-a", Map.of()))), Map.of()),
            NOW);

    JsonNode j = JsonMapper.builder().build().readTree(JsonReport.render(e));

    assertThat(j.get("state").asString()).isEqualTo("SCHEDULED");
    assertThat(j.get("nodeName").asString()).isEqualTo("gpu-a");
    assertThat(j.at("/placement/score").asLong()).isEqualTo(187);
    assertThat(j.at("/placement/top/1/node").asString()).isEqualTo("gpu-b");
    assertThat(j.at("/devices/0/container").asString()).isEqualTo("cuda");
    assertThat(j.at("/devices/0/devices/0/uuid").asString()).isEqualTo(DEV);
    assertThat(j.at("/devices/0/devices/0/handedOut").asBoolean()).isTrue();
    assertThat(j.at("/binding/bindTime").asString()).isEqualTo("2026-11-29T13:59:31Z");
    assertThat(j.get("lastFailure").isNull()).isTrue();
  }

  @Test
  void preemptorPod_showsItsNominationAndVictims() {
    String msg = "0/3 nodes are available: 3 CardInsufficientMemory.";
    String record =
        ScheduleRecordCodec.encode(
            new ScheduleRecord.Failed(
                T,
                "Unschedulable",
                null,
                3,
                List.of(new ScheduleRecord.ReasonCount("CardInsufficientMemory", 3)),
                0,
                List.of(),
                new ScheduleRecord.Preemption("gpu-a", List.of("batch/w-1", "batch/w-2"), 0)));
    Pod pod =
        unschedulable(pod("team", "urgent"), msg)
            .editMetadata()
            .addToAnnotations(Annotations.SCHEDULE_EXPLAIN, record)
            .endMetadata()
            .editStatus()
            .withNominatedNodeName("gpu-a")
            .endStatus()
            .build();

    Explanation e = Explainer.explain(facts(pod, List.of(), Map.of(), Map.of()), NOW);

    assertThat(e.summary())
        .isEqualTo(
            "waiting: nominated to node gpu-a after preempting 2 lower-priority pods; it binds"
                + " there once they are gone");
    assertThat(TextReport.render(e, NOW))
        .contains("Preemption:", "nominated to gpu-a")
        .contains("Evicted (2 lower-priority pods):", "batch/w-1", "batch/w-2");
    assertThat(JsonReport.render(e)).contains("\"nominatedNode\" : \"gpu-a\"");
  }

  @Test
  void pendingPod_showsPerReasonCountsAndClosestNodes() {
    String msg = "0/3 nodes are available: 3 CardInsufficientMemory.";
    Pod pod =
        unschedulable(pod("team", "big"), msg)
            .editMetadata()
            .addToAnnotations(
                Annotations.SCHEDULE_EXPLAIN, failed(null, "CardInsufficientMemory", 3))
            .endMetadata()
            .build();

    Explanation e =
        Explainer.explain(
            facts(
                pod,
                List.of(event(pod, "Warning", "FailedScheduling", msg, "2026-11-29T13:59:30Z")),
                Map.of(),
                Map.of()),
            NOW);

    assertThat(e.state()).isEqualTo(State.PENDING);
    assertThat(e.summary()).isEqualTo("waiting: " + msg);
    assertThat(e.locks()).isEmpty();
    String text = TextReport.render(e, NOW);
    assertThat(text)
        .contains("Last failed attempt:")
        .contains("Unschedulable at 2026-11-29T13:59:30Z (30s ago)")
        .contains("Nodes per reason:", "3      CardInsufficientMemory")
        .contains("Closest nodes (fewest reasons):", "gpu-a: CardInsufficientMemory")
        .contains("Warning  FailedScheduling     30s")
        .doesNotContain("Devices:");
    JsonNode j = JsonMapper.builder().build().readTree(JsonReport.render(e));
    assertThat(j.at("/lastFailure/reasons/0/reason").asString())
        .isEqualTo("CardInsufficientMemory");
    assertThat(j.at("/lastFailure/reasons/0/nodes").asInt()).isEqualTo(3);
  }

  static Stream<Arguments> lockHolders() {
    Pod holder =
        bound(pod("other", "holder"), "gpu-a")
            .editMetadata()
            .addToAnnotations(Annotations.BIND_PHASE, "allocating")
            .endMetadata()
            .build();
    return Stream.of(
        arguments(
            "holder waiting for Allocate",
            Optional.of(holder),
            "waiting: node gpu-a is locked by other/holder",
            "holder: Running, bound to gpu-a, bind-phase allocating"),
        arguments(
            "holder deleted",
            Optional.empty(),
            "waiting: node gpu-a is locked by other/holder (deleted; the lock is stale and will be replaced)",
            "holder: deleted, so the lock is stale"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lockHolders")
  void pendingPod_blockedByALock_namesTheHolderAndItsState(
      String name, Optional<Pod> holder, String summary, String holderLine) {
    String msg = "binding to gpu-a failed: node gpu-a is locked by other/holder";
    Pod pod =
        unschedulable(pod("team", "next"), msg)
            .editMetadata()
            .addToAnnotations(
                Annotations.SCHEDULE_EXPLAIN,
                failed("gpu-a", "node gpu-a is locked by other/holder", 1))
            .endMetadata()
            .build();
    Node node = lockedNode("gpu-a", "2026-11-29T13:58:00Z,other,holder");

    assertThat(Explainer.nodesToRead(pod)).containsOnlyKeys("gpu-a");
    assertThat(Explainer.holdersToRead(pod, Map.of("gpu-a", Optional.of(node))))
        .containsExactly("other/holder");
    Explanation e =
        Explainer.explain(
            facts(
                pod, List.of(), Map.of("gpu-a", Optional.of(node)), Map.of("other/holder", holder)),
            NOW);

    assertThat(e.summary()).isEqualTo(summary);
    assertThat(e.locks())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.holder().name()).isEqualTo("holder");
              assertThat(l.age().getSeconds()).isEqualTo(120);
              assertThat(l.expired()).isFalse();
            });
    assertThat(TextReport.render(e, NOW))
        .contains(
            "gpu-a (chosen in the last attempt, which then failed): held by other/holder (held 2m)")
        .contains(holderLine)
        .contains("  Chosen node:  gpu-a");
  }

  @Test
  void podRefusedForAnUnsupportedField_namesTheFieldInTheSummary() {
    // What PodSpecSupport's rejection at PreFilter becomes in PodScheduled; no per-node record.
    String msg =
        "0/3 nodes are available: spec.resourceClaims is not supported by this scheduler"
            + " (DynamicResources).";
    Pod pod =
        unschedulable(pod("team", "dra"), msg)
            .editSpec()
            .addNewResourceClaim()
            .withName("gpu")
            .withResourceClaimName("gpu-claim")
            .endResourceClaim()
            .endSpec()
            .build();

    Explanation e =
        Explainer.explain(
            facts(
                pod,
                List.of(event(pod, "Warning", "FailedScheduling", msg, "2026-11-29T13:59:30Z")),
                Map.of(),
                Map.of()),
            NOW);

    assertThat(e.state()).isEqualTo(State.PENDING);
    assertThat(e.summary()).isEqualTo("waiting: " + msg);
    assertThat(TextReport.render(e, NOW)).contains("spec.resourceClaims is not supported");
  }

  @Test
  void boundPodWaitingForAllocate_holdsItsNodesLock_andShowsPendingDevices() {
    Pod pod =
        bound(pod("team", "p"), "gpu-a")
            .editMetadata()
            .addToAnnotations(Annotations.VGPU_NODE, "gpu-a")
            // v2.10 form without the init container's leading entry.
            .addToAnnotations(Annotations.VGPU_DEVICES_ALLOCATED, DEV + ",NVIDIA,1000,0:;")
            .addToAnnotations(Annotations.VGPU_DEVICES_TO_ALLOCATE, DEV + ",NVIDIA,1000,0:;")
            .addToAnnotations(Annotations.BIND_PHASE, "allocating")
            .endMetadata()
            .build();
    Node node = lockedNode("gpu-a", "2026-11-29T13:50:00Z,team,p");

    Explanation e =
        Explainer.explain(facts(pod, List.of(), Map.of("gpu-a", Optional.of(node)), Map.of()), NOW);

    assertThat(e.summary()).contains("waiting for the node agent to hand out the devices");
    assertThat(e.devices())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.container()).isEqualTo("cuda");
              assertThat(c.devices().get(0).pending()).isTrue();
            });
    assertThat(e.locks()).singleElement().satisfies(l -> assertThat(l.heldBySelf()).isTrue());
    assertThat(TextReport.render(e, NOW))
        .contains("held by this pod (held 10m, expired (the next bind replaces it))")
        .contains("waiting for the node agent");
  }

  @Test
  void failureRecordedBeforeBinding_isMarkedStale() {
    Pod pod =
        bound(pod("team", "p"), "gpu-a")
            .editMetadata()
            .addToAnnotations(
                Annotations.SCHEDULE_EXPLAIN, failed(null, "CardInsufficientMemory", 3))
            .endMetadata()
            .build();

    Explanation e =
        Explainer.explain(facts(pod, List.of(), Map.of("gpu-a", Optional.empty()), Map.of()), NOW);

    assertThat(e.attemptIsStale()).isTrue();
    assertThat(TextReport.render(e, NOW))
        .contains("Last failed attempt (before the pod was bound):")
        .contains("gpu-a (the pod's node): node not found");
  }

  @Test
  void noRecordYet_saysSo() {
    Explanation e =
        Explainer.explain(facts(pod("team", "new").build(), List.of(), Map.of(), Map.of()), NOW);

    assertThat(e.summary())
        .startsWith("waiting: no failed attempt recorded; either hami-scheduler has not tried");
    assertThat(TextReport.render(e, NOW)).contains("Events:\n  <none>");
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        arguments(Annotations.SCHEDULE_EXPLAIN, "0/3 nodes", Annotations.SCHEDULE_EXPLAIN),
        arguments(
            Annotations.SCHEDULE_EXPLAIN,
            "{\"v\":1,\"result\":\"Scheduled\"}",
            Annotations.SCHEDULE_EXPLAIN),
        arguments(
            Annotations.VGPU_DEVICES_ALLOCATED,
            "GPU-1,NVIDIA:;",
            Annotations.VGPU_DEVICES_ALLOCATED),
        arguments(
            Annotations.VGPU_DEVICES_TO_ALLOCATE, "x,y:;", Annotations.VGPU_DEVICES_TO_ALLOCATE),
        arguments(Annotations.BIND_TIME, "yesterday", Annotations.BIND_TIME),
        arguments(Annotations.VGPU_TIME, "-5", Annotations.VGPU_TIME),
        arguments(Annotations.BIND_PHASE, "done", Annotations.BIND_PHASE));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("malformed")
  void malformedAnnotation_isReportedWithItsNameAndValue_neverThrown(
      String key, String value, String where) {
    Pod pod =
        pod("team", "odd")
            .editMetadata()
            .addToAnnotations(Annotations.VGPU_DEVICES_ALLOCATED, DEV + ",NVIDIA,1000,0:;")
            .addToAnnotations(key, value)
            .endMetadata()
            .build();

    Explanation e = Explainer.explain(facts(pod, List.of(), Map.of(), Map.of()), NOW);

    assertThat(e.problems()).extracting(Problem::where).containsExactly(where);
    assertThat(e.problems().get(0).value()).isEqualTo(value);
    assertThat(TextReport.render(e, NOW))
        .contains("Unreadable annotations:", where + ": ", "value: " + value);
    assertThat(JsonReport.render(e)).contains("\"where\" : \"" + where + "\"");
  }

  @Test
  void malformedLock_isReportedWithTheNode() {
    Pod pod = bound(pod("team", "p"), "gpu-a").build();
    Explanation e =
        Explainer.explain(
            facts(
                pod,
                List.of(),
                Map.of("gpu-a", Optional.of(lockedNode("gpu-a", "soon,x"))),
                Map.of()),
            NOW);

    assertThat(e.problems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.where()).isEqualTo("node gpu-a " + Annotations.MUTEX_LOCK);
              assertThat(p.value()).isEqualTo("soon,x");
            });
    assertThat(TextReport.render(e, NOW)).contains("locked, value unreadable: soon,x");
  }

  @Test
  void lockNamingNoPod_isNotLookedUp() {
    Pod pod = bound(pod("team", "p"), "gpu-a").build();
    Node node = lockedNode("gpu-a", "2026-11-29T13:58:00Z,team,");

    assertThat(Explainer.holdersToRead(pod, Map.of("gpu-a", Optional.of(node)))).isEmpty();
    Explanation e =
        Explainer.explain(facts(pod, List.of(), Map.of("gpu-a", Optional.of(node)), Map.of()), NOW);
    assertThat(e.locks()).singleElement().satisfies(l -> assertThat(l.holder().exists()).isFalse());
  }

  @Test
  void duration_printsLikeKubectl() {
    assertThat(TextReport.duration(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(TextReport.duration(Duration.ofSeconds(192))).isEqualTo("3m12s");
    assertThat(TextReport.duration(Duration.ofMinutes(125))).isEqualTo("2h5m");
    assertThat(TextReport.duration(Duration.ofHours(76))).isEqualTo("3d4h");
    assertThat(TextReport.duration(Duration.ofSeconds(-3))).isEqualTo("0s");
  }
}
