package io.hami.cmd.explain;

import static io.hami.cmd.explain.Fixtures.bound;
import static io.hami.cmd.explain.Fixtures.lockedNode;
import static io.hami.cmd.explain.Fixtures.pod;
import static io.hami.cmd.explain.Fixtures.unschedulable;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.cmd.HamiCommand;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code hami explain pod} end to end against fabric8's CRUD mock server, through a kubeconfig. */
@EnableKubernetesMockClient(crud = true, https = false)
class ExplainPodCommandIT {
  KubernetesClient client;

  @TempDir Path dir;
  private Path kubeconfig;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void writeKubeconfig() throws Exception {
    kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
        contexts:
        - name: mock
          context: {cluster: mock, user: mock, namespace: team}
        current-context: mock
        users:
        - name: mock
          user: {token: token}
        """
            .formatted(client.getConfiguration().getMasterUrl()));
  }

  private int run(String... args) {
    var cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return cl.execute(args);
  }

  private Pod create(Pod p) {
    return client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).create();
  }

  @Test
  void pendingPodBlockedByALock_namesTheHolderFromTheNodeAndTheHolderPod() {
    Instant t = Instant.now().minusSeconds(5);
    client.nodes().resource(lockedNode("gpu-a", "2026-11-29T13:58:00Z,other,holder")).create();
    create(
        bound(pod("other", "holder"), "gpu-a")
            .editMetadata()
            .addToAnnotations(Annotations.BIND_PHASE, "allocating")
            .endMetadata()
            .build());
    String msg = "binding to gpu-a failed: node gpu-a is locked by other/holder";
    create(
        unschedulable(pod("team", "next"), msg)
            .editMetadata()
            .addToAnnotations(
                Annotations.SCHEDULE_EXPLAIN,
                ScheduleRecordCodec.encode(
                    new ScheduleRecord.Failed(
                        t,
                        "Unschedulable",
                        "gpu-a",
                        1,
                        List.of(
                            new ScheduleRecord.ReasonCount(
                                "node gpu-a is locked by other/holder", 1)),
                        0,
                        List.of())))
            .endMetadata()
            .build());
    // (Events are found with an involvedObject field selector, which the mock server does not
    // evaluate; ExplainerTest and ExplainE2E cover them.)
    // The namespace comes from the kubeconfig's context.
    int code = run("explain", "pod", "next", "--kubeconfig", kubeconfig.toString());

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("Pod:            team/next")
        .contains("Result:         waiting: node gpu-a is locked by other/holder")
        .contains("held by other/holder")
        .contains("holder: Running, bound to gpu-a, bind-phase allocating")
        .contains("1      node gpu-a is locked by other/holder");
  }

  @Test
  void scheduledPod_asJson() {
    client.nodes().resource(Fixtures.node("gpu-a", Map.of())).create();
    create(
        bound(pod("team", "train"), "gpu-a")
            .editMetadata()
            .addToAnnotations(Annotations.VGPU_NODE, "gpu-a")
            .addToAnnotations(Annotations.VGPU_DEVICES_ALLOCATED, ";GPU-1,NVIDIA,4000,30:;")
            .addToAnnotations(Annotations.VGPU_DEVICES_TO_ALLOCATE, ";;")
            .addToAnnotations(Annotations.BIND_PHASE, "success")
            .addToAnnotations(
                Annotations.SCHEDULE_EXPLAIN,
                ScheduleRecordCodec.encode(
                    new ScheduleRecord.Scheduled(
                        Instant.now(),
                        "gpu-a",
                        90L,
                        "binpack",
                        "spread",
                        2,
                        2,
                        List.of(
                            new ScheduleRecord.NodeScore("gpu-a", 90),
                            new ScheduleRecord.NodeScore("gpu-b", 40)))))
            .endMetadata()
            .build());

    int code =
        run("explain", "pod", "team/train", "--kubeconfig", kubeconfig.toString(), "-o", "json");

    assertThat(code).as(err.toString()).isZero();
    JsonNode j = JsonMapper.builder().build().readTree(out.toString());
    assertThat(j.get("state").asString()).isEqualTo("SCHEDULED");
    assertThat(j.at("/placement/node").asString()).isEqualTo("gpu-a");
    assertThat(j.at("/placement/top/1/score").asLong()).isEqualTo(40);
    assertThat(j.at("/devices/0/container").asString()).isEqualTo("cuda");
    assertThat(j.at("/devices/0/devices/0/uuid").asString()).isEqualTo("GPU-1");
    assertThat(j.at("/locks/0/value").isNull()).isTrue();
  }

  @Test
  void missingPod_exitsOne_andBadFlagsExitTwo() {
    assertThat(run("explain", "pod", "team/ghost", "--kubeconfig", kubeconfig.toString()))
        .isEqualTo(1);
    assertThat(err.toString()).contains("pod team/ghost not found");

    assertThat(run("explain", "pod", "team/x", "--kubeconfig", kubeconfig.toString(), "-o", "yaml"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("-o: invalid value \"yaml\": want text or json");
    assertThat(run("explain", "pod", "team/x/y", "--kubeconfig", kubeconfig.toString()))
        .isEqualTo(2);
    assertThat(
            run("explain", "pod", "team/x", "-n", "other", "--kubeconfig", kubeconfig.toString()))
        .isEqualTo(2);
    assertThat(run("explain", "pod", "team/x", "--kubeconfig", dir.resolve("absent").toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--kubeconfig: cannot read");
  }
}
