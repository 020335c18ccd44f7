package io.hami.cmd.scheduler.ui;

import static io.hami.cmd.scheduler.ui.ViewFixtures.SECRET;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuNode;
import static io.hami.cmd.scheduler.ui.ViewFixtures.gpuPod;
import static io.hami.cmd.scheduler.ui.ViewFixtures.info;
import static io.hami.cmd.scheduler.ui.ViewFixtures.uuid;
import static io.hami.cmd.scheduler.ui.ViewFixtures.withCondition;
import static io.hami.cmd.scheduler.ui.ViewFixtures.withSecretEnv;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.cmd.scheduler.ui.ClusterState.GpuView;
import io.hami.cmd.scheduler.ui.ClusterState.NodeDetail;
import io.hami.cmd.scheduler.ui.ClusterState.NodeView;
import io.hami.cmd.scheduler.ui.ClusterState.PendingPod;
import io.hami.cmd.scheduler.ui.ClusterState.PodShare;
import io.hami.cmd.scheduler.ui.ClusterState.ProfilePolicy;
import io.hami.framework.api.PluginArgs;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterStateBuilderTest {

  /** What a GPU should show: memory, cores and slots used, and its pods' shares. */
  record WantGpu(long mem, long cores, int slots, List<PodShare> pods) {}

  static Stream<Arguments> usage() {
    String g0 = uuid("n1", 0);
    String g1 = uuid("n1", 1);
    return Stream.of(
        Arguments.of("no pods", List.of(), Map.of(0, new WantGpu(0, 0, 0, List.of())), 0),
        Arguments.of(
            "one pod on GPU 0",
            List.of(gpuPod("ns", "a", "n1", g0 + ",4096,30").obj()),
            Map.of(
                0,
                new WantGpu(4096, 30, 1, List.of(new PodShare("ns/a", 4096, 30, 1))),
                1,
                new WantGpu(0, 0, 0, List.of())),
            0),
        Arguments.of(
            "two containers of one pod on GPU 0 sum up; a second pod on GPU 1",
            List.of(
                gpuPod("ns", "a", "n1", g0 + ",1000,10", g0 + ",2000,20").obj(),
                gpuPod("ns", "b", "n1", g1 + ",8192,0").obj()),
            Map.of(
                0,
                new WantGpu(3000, 30, 2, List.of(new PodShare("ns/a", 3000, 30, 2))),
                1,
                new WantGpu(8192, 0, 1, List.of(new PodShare("ns/b", 8192, 0, 1)))),
            0),
        Arguments.of(
            "a pod without grants and one with a malformed grant count as other pods",
            List.of(
                MakePod.named("cpu").namespace("ns").nodeName("n1").obj(),
                MakePod.named("bad")
                    .namespace("ns")
                    .nodeName("n1")
                    .annotation(Annotations.VGPU_DEVICES_ALLOCATED, "garbage")
                    .obj()),
            Map.of(0, new WantGpu(0, 0, 0, List.of())),
            2),
        Arguments.of(
            "a grant in flight (to-allocate only) counts; one on an unknown GPU does not",
            List.of(
                MakePod.named("c")
                    .namespace("ns")
                    .nodeName("n1")
                    .annotation(Annotations.VGPU_DEVICES_TO_ALLOCATE, g1 + ",NVIDIA,100,5:;")
                    .obj(),
                gpuPod("ns", "d", "n1", "GPU-elsewhere,100,5").obj()),
            Map.of(1, new WantGpu(100, 5, 1, List.of(new PodShare("ns/c", 100, 5, 1)))),
            1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void usage(String name, List<Pod> pods, Map<Integer, WantGpu> want, int wantOther) {
    NodeView n =
        ClusterStateBuilder.node(info(gpuNode("n1", 2).obj(), pods.toArray(Pod[]::new)), null);

    assertThat(n.gpus()).hasSize(2);
    assertThat(n.otherPods()).isEqualTo(wantOther);
    want.forEach(
        (index, w) -> {
          GpuView g = n.gpus().get(index);
          assertThat(new WantGpu(g.memUsed(), g.coresUsed(), g.slotsUsed(), g.pods()))
              .as("GPU %s", index)
              .isEqualTo(w);
          assertThat(g.memTotal()).isEqualTo(81920);
          assertThat(g.coresTotal()).isEqualTo(100);
          assertThat(g.slotsTotal()).isEqualTo(10);
          assertThat(g.type()).isEqualTo("NVIDIA A100-SXM4-80GB");
          assertThat(g.healthy()).isTrue();
        });
  }

  static Stream<Arguments> register() {
    return Stream.of(
        Arguments.of("absent", MakeNode.named("n"), 0, false),
        Arguments.of(
            "malformed JSON",
            MakeNode.named("n").annotation(Annotations.NODE_NVIDIA_REGISTER, "[{\"id\":"),
            0,
            true),
        Arguments.of("JSON with four GPUs", gpuNode("n", 4), 4, false),
        Arguments.of(
            "colon form",
            MakeNode.named("n")
                .annotation(
                    Annotations.NODE_NVIDIA_REGISTER,
                    "GPU-a,10,16384,100,NVIDIA-Tesla T4,0,true:GPU-b,10,16384,100,NVIDIA-Tesla T4,1,false:"),
            2,
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void register(String name, MakeNode node, int wantGpus, boolean wantProblem) {
    NodeView n = ClusterStateBuilder.node(info(node.obj()), null);

    assertThat(n.gpus()).hasSize(wantGpus);
    assertThat(n.registerProblem() != null).isEqualTo(wantProblem);
  }

  static Stream<Arguments> detail() {
    Instant t = Instant.parse("2026-12-04T01:00:00Z");
    return Stream.of(
        Arguments.of("nothing", Map.of(), new NodeDetail(null, null, "None", "", null)),
        Arguments.of(
            "locked by a pod, handshake requested",
            Map.of(
                Annotations.MUTEX_LOCK, "2026-12-04T01:00:00Z,team,train-1",
                Annotations.NODE_HANDSHAKE, "Requesting_2026-12-04 01:00:00"),
            new NodeDetail(
                "team/train-1", t, "Requesting", "Requesting_2026-12-04 01:00:00", null)),
        Arguments.of(
            "legacy time-only lock, reported",
            Map.of(
                Annotations.MUTEX_LOCK, "2026-12-04T01:00:00Z",
                Annotations.NODE_HANDSHAKE, "Reported 2026-12-04 01:00:00"),
            new NodeDetail("", t, "Reported", "Reported 2026-12-04 01:00:00", null)),
        Arguments.of(
            "unreadable lock",
            Map.of(Annotations.MUTEX_LOCK, "not a time"),
            new NodeDetail("(unreadable lock)", null, "None", "", null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void detail(String name, Map<String, String> annotations, NodeDetail want) {
    assertThat(ClusterStateBuilder.detail(annotations, null)).isEqualTo(want);
  }

  @Test
  void pendingPod_showsTheConditionAndTheExplainRecord() {
    ScheduleRecord.Failed record =
        new ScheduleRecord.Failed(
            Instant.parse("2026-12-04T01:02:03Z"),
            "Unschedulable",
            null,
            3,
            List.of(
                new ScheduleRecord.ReasonCount("CardInsufficientMemory", 2),
                new ScheduleRecord.ReasonCount("node(s) had untolerated taint", 1)),
            0,
            List.of(new ScheduleRecord.NodeReasons("n1", List.of("1/8 CardInsufficientMemory"))),
            null);
    Pod pod =
        withCondition(
            MakePod.named("big")
                .namespace("ns")
                .schedulerName("hami-scheduler")
                .creationTimestamp("2026-12-04T01:00:00Z")
                .annotation(Annotations.SCHEDULE_EXPLAIN, ScheduleRecordCodec.encode(record))
                .obj(),
            "Unschedulable",
            "0/3 nodes are available: 2 CardInsufficientMemory.");

    PendingPod p = ClusterStateBuilder.pendingPod(pod);

    assertThat(p)
        .isEqualTo(
            new PendingPod(
                "ns/big",
                "hami-scheduler",
                Instant.parse("2026-12-04T01:00:00Z"),
                "Unschedulable",
                "0/3 nodes are available: 2 CardInsufficientMemory.",
                Instant.parse("2026-12-04T01:02:03Z"),
                List.of("2 CardInsufficientMemory", "1 node(s) had untolerated taint"),
                List.of("n1: 1/8 CardInsufficientMemory")));
  }

  @Test
  void pendingPod_notTriedYet_orWithAMalformedRecord_hasNoReasons() {
    Pod fresh = MakePod.named("new").namespace("ns").obj();
    Pod bad =
        MakePod.named("bad")
            .namespace("ns")
            .annotation(Annotations.SCHEDULE_EXPLAIN, "{not json")
            .obj();

    List<PendingPod> ps = ClusterStateBuilder.pending(List.of(fresh, bad));

    assertThat(ps).extracting(PendingPod::pod).containsExactly("ns/bad", "ns/new");
    assertThat(ps).allSatisfy(p -> assertThat(p.reasons()).isEmpty());
    assertThat(ps).allSatisfy(p -> assertThat(p.reason()).isEmpty());
  }

  record SampleArgs(String nodeSchedulerPolicy, int weight) implements PluginArgs {}

  @Test
  void policy_listsEachArgument() {
    Map<String, PluginArgs> args = new LinkedHashMap<>();
    args.put("vgpu", new SampleArgs("binpack", 3));

    ProfilePolicy p = ClusterStateBuilder.policy("hami-scheduler", args);

    assertThat(p.plugins())
        .containsExactly(
            Map.entry("vgpu", Map.of("nodeSchedulerPolicy", "binpack", "weight", "3")));
  }

  @Test
  void json_neverCarriesPodEnvOrOtherAnnotations() {
    Pod pod = withSecretEnv(gpuPod("ns", "a", "n1", uuid("n1", 0) + ",4096,30").obj());
    Pod waiting = withSecretEnv(gpuPod("ns", "w", "", uuid("n1", 0) + ",1,1").obj());
    ClusterState s =
        new ClusterState(
            ClusterStateBuilder.nodes(List.of(info(gpuNode("n1", 1).obj(), pod)), n -> null),
            ClusterStateBuilder.pending(List.of(waiting)),
            List.of());

    String json = ClusterStateJson.encode(s);

    assertThat(json).contains("ns/a").contains("ns/w").doesNotContain(SECRET);
    assertThat(json).doesNotContain("api-token").doesNotContain("PASSWORD");
    assertThat(json).doesNotContain("node.alpha.kubernetes.io/ttl");
  }

  @Test
  void json_escapesMarkupAndQuotes() {
    StringBuilder b = new StringBuilder();
    ClusterStateJson.str(b, "a\"<script>&\n");

    assertThat(b).hasToString("\"a\\\"\\u003cscript\\u003e\\u0026\\n\"");
  }
}
