package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.HamiCommand;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import io.hami.cmd.scheduler.PluginRegistry;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.SchedulerService;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.nodeagent.nvml.GpuInfo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code hami explain pod} against the real control plane: the hami-scheduler with the shipped
 * profile places one pod and cannot place another, and explain, reading only the API, names the
 * node and devices of the first and the per-reason node counts of the second.
 */
@ExtendWith(ControlPlaneExtension.class)
class ExplainE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String GROUP = "e2e.hami.io/explain-group";

  @TempDir static Path dir;
  private static SchedulerService scheduler;
  private final List<GpuNode> nodes = new ArrayList<>();

  @BeforeAll
  static void startScheduler(KubernetesClient client) throws Exception {
    Registry registry = PluginRegistry.create();
    Path config =
        ControlPlaneExtension.moduleDir()
            .toAbsolutePath()
            .getParent()
            .resolve("config/scheduler/scheduler-config.yaml");
    SchedulerConfiguration cfg = new ConfigLoader(registry).load(config);
    scheduler =
        new SchedulerService(
            client,
            cfg,
            registry,
            new SchedulerService.Options(false, "hami-scheduler-explain-e2e", null, 50, 100, 4));
    try {
      scheduler.start(Duration.ofSeconds(60));
    } catch (Exception e) {
      scheduler.close();
      throw e;
    }
  }

  @AfterAll
  static void stopScheduler() {
    if (scheduler != null) {
      scheduler.close();
    }
  }

  @AfterEach
  void stopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    try {
      Set<String> names = new HashSet<>();
      nodes.forEach(n -> names.add(n.name()));
      assertThat(Invariants.check(client, names)).as("invariants on %s", names).isEmpty();
    } finally {
      client.pods().inNamespace(ns.name()).withGracePeriod(0).delete();
      for (GpuNode n : nodes) {
        n.close();
      }
      nodes.clear();
    }
  }

  private GpuNode node(KubernetesClient client, String name, String group, GpuInfo gpu)
      throws Exception {
    GpuNode n =
        GpuNode.start(client, dir, FakeNode.named(name).label(GROUP, group), 10, List.of(gpu));
    nodes.add(n);
    return n;
  }

  private static Pod gpuPod(String name, String group, int memMiB) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("hami-scheduler")
        .withTerminationGracePeriodSeconds(1L)
        .withNodeSelector(Map.of(GROUP, group))
        .addNewContainer()
        .withName("cuda")
        .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
        .withNewResources()
        .withLimits(
            Map.of(
                "nvidia.com/gpu", new Quantity("1"),
                "nvidia.com/gpumem", new Quantity(Integer.toString(memMiB)),
                "nvidia.com/gpucores", new Quantity("20")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * Runs {@code hami explain pod} as a user would, through the admin kubeconfig; returns stdout.
   */
  private static String explain(ControlPlane cp, String target, String... more) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = HamiCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    List<String> args =
        new ArrayList<>(
            List.of("explain", "pod", target, "--kubeconfig", cp.kubeconfig().toString()));
    args.addAll(List.of(more));
    int code = cl.execute(args.toArray(new String[0]));
    assertThat(code).as("hami explain exit code; stderr: %s", err).isZero();
    return out.toString();
  }

  private static Map<String, String> annotations(
      KubernetesClient client, TestNamespace ns, String name) {
    Pod p = client.pods().inNamespace(ns.name()).withName(name).get();
    return p == null || p.getMetadata().getAnnotations() == null
        ? Map.of()
        : p.getMetadata().getAnnotations();
  }

  @Test
  void explain_namesTheChosenNodeAndDevices_andThePerReasonCountsOfAPendingPod(
      ControlPlane cp, KubernetesClient client, TestNamespace ns) throws Exception {
    String group = ns.name();
    GpuInfo big = GpuNode.gpu(0, 16000);
    GpuNode a = node(client, ns.name() + "-a", group, big);
    GpuNode b = node(client, ns.name() + "-b", group, GpuNode.gpu(0, 8000));

    client.pods().inNamespace(ns.name()).resource(gpuPod("placed", group, 4000)).create();
    client.pods().inNamespace(ns.name()).resource(gpuPod("too-big", group, 20000)).create();

    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> "success".equals(annotations(client, ns, "placed").get(Annotations.BIND_PHASE)));
    Pod placed = client.pods().inNamespace(ns.name()).withName("placed").get();
    String nodeName = placed.getSpec().getNodeName();
    assertThat(nodeName).isIn(a.name(), b.name());
    String allocated =
        placed.getMetadata().getAnnotations().get(Annotations.VGPU_DEVICES_ALLOCATED);
    String uuid = Invariants.parseDevices(allocated).get(0).get(0).uuid();
    // The placement record came with the PreBind pod patch.
    ScheduleRecord.Scheduled record =
        (ScheduleRecord.Scheduled)
            ScheduleRecordCodec.decode(
                    placed.getMetadata().getAnnotations().get(Annotations.SCHEDULE_EXPLAIN))
                .orElseThrow();
    assertThat(record.node()).isEqualTo(nodeName);
    assertThat(record.feasible()).isEqualTo(2);

    String text =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> explain(cp, ns.name() + "/placed"), s -> s.contains("Successfully assigned"));
    System.out.println("e2e: hami explain pod " + ns.name() + "/placed\n" + text);
    assertThat(text)
        .contains("Result:         bound to " + nodeName + " (bind-phase success)")
        .contains("  Node:         " + nodeName + ", score ")
        .contains("  Policy:       node binpack, GPU spread")
        .contains("  Candidates:   2 feasible of ")
        .contains("Container cuda (" + Annotations.VGPU_DEVICES_ALLOCATED + "):")
        .contains(uuid + "  NVIDIA  4000 MiB  20% cores  handed out")
        .contains(nodeName + " (the pod's node): ");

    // The failure record rides in the PodScheduled status patch.
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> annotations(client, ns, "too-big").containsKey(Annotations.SCHEDULE_EXPLAIN));
    String pending = explain(cp, ns.name() + "/too-big");
    System.out.println("e2e: hami explain pod " + ns.name() + "/too-big\n" + pending);
    assertThat(pending)
        .contains("Result:         waiting: 0/")
        .contains("Nodes per reason:")
        .contains("2      CardInsufficientMemory");

    JsonNode j =
        JsonMapper.builder().build().readTree(explain(cp, ns.name() + "/too-big", "-o", "json"));
    assertThat(j.get("state").asString()).isEqualTo("PENDING");
    assertThat(j.at("/podScheduled/reason").asString()).isEqualTo("Unschedulable");
    // Nodes of other suites may share the control plane; they fail on the selector, ours on memory.
    Map<String, Integer> counts = new HashMap<>();
    j.at("/lastFailure/reasons")
        .forEach(r -> counts.put(r.get("reason").asString(), r.get("nodes").asInt()));
    assertThat(counts).containsEntry("CardInsufficientMemory", 2);
    assertThat(j.get("problems")).isEmpty();
  }
}
