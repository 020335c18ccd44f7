package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kubernetes' own placement constraints on GPU workloads, through the hami-scheduler with the
 * shipped profile and the controller-manager: pod anti-affinity of a Deployment's replicas, zone
 * spreading, a late-bound local volume, scheduling gates and a refused {@code resourceClaims}.
 */
@ExtendWith({ControlPlaneExtension.class, SchedulerExtension.class})
class KubeConstraintsE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String ZONE = "topology.kubernetes.io/zone";
  private static final String HOSTNAME = "kubernetes.io/hostname";

  @TempDir static Path dir;
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void checkInvariantsAndStopNodes(KubernetesClient client, TestNamespace ns) throws Exception {
    // The Deployment and its ReplicaSets go first, so that nothing recreates the pods.
    client.apps().deployments().inNamespace(ns.name()).delete();
    client.apps().replicaSets().inNamespace(ns.name()).delete();
    client.persistentVolumeClaims().inNamespace(ns.name()).delete();
    Teardown.checkInvariantsAndStop(client, ns.name(), nodes);
  }

  private GpuNode node(KubernetesClient client, String name) throws Exception {
    GpuNode n = GpuNode.start(client, dir, name, 10, List.of(GpuNode.gpu(0, 16000)));
    nodes.add(n);
    return n;
  }

  private static void label(KubernetesClient client, String node, String key, String value) {
    client
        .nodes()
        .withName(node)
        .edit(n -> new NodeBuilder(n).editMetadata().addToLabels(key, value).endMetadata().build());
  }

  /** A GPU pod restricted to {@code hosts}, for the hami-scheduler. */
  private static PodBuilder gpuPod(String name, Map<String, String> labels, List<String> hosts) {
    return new PodBuilder(GpuPods.named(name).gpu(1, 2000, 10).build())
        .editMetadata()
        .withLabels(labels)
        .endMetadata()
        .editSpec()
        .editOrNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm()
        .withMatchExpressions(new NodeSelectorRequirement(HOSTNAME, "In", hosts))
        .endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .endSpec();
  }

  private static List<Pod> pods(KubernetesClient client, TestNamespace ns, String app) {
    return client.pods().inNamespace(ns.name()).withLabel("app", app).list().getItems();
  }

  private static Optional<PodCondition> scheduled(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .findFirst();
  }

  private static Pod get(KubernetesClient client, TestNamespace ns, String name) {
    return client.pods().inNamespace(ns.name()).withName(name).get();
  }

  private static PodCondition awaitNotScheduled(
      KubernetesClient client, TestNamespace ns, String name) {
    return await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> scheduled(get(client, ns, name)),
            c -> c.isPresent() && "False".equals(c.get().getStatus()))
        .orElseThrow();
  }

  @Test
  void deploymentWithHostnameAntiAffinity_oneReplicaPerNode_andTheFourthBindsWhenANodeJoins(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String stem = ns.name() + "-anti-";
    List<String> hosts = List.of(stem + 0, stem + 1, stem + 2, stem + 3);
    for (int i = 0; i < 3; i++) {
      node(client, hosts.get(i));
    }
    Map<String, String> labels = Map.of("app", "trainer");
    Pod template =
        gpuPod("unused", labels, hosts)
            .editSpec()
            .editAffinity()
            .withNewPodAntiAffinity()
            .withRequiredDuringSchedulingIgnoredDuringExecution(
                new PodAffinityTermBuilder()
                    .withLabelSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
                    .withTopologyKey(HOSTNAME)
                    .build())
            .endPodAntiAffinity()
            .endAffinity()
            .endSpec()
            .build();
    client
        .apps()
        .deployments()
        .inNamespace(ns.name())
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("trainer")
                .endMetadata()
                .withNewSpec()
                .withReplicas(4)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withTemplate(
                    new PodTemplateSpec(
                        new ObjectMetaBuilder().withLabels(labels).build(), template.getSpec()))
                .endSpec()
                .build())
        .create();

    await()
        .atMost(PATIENCE)
        .until(
            () ->
                pods(client, ns, "trainer").stream()
                        .filter(p -> p.getSpec().getNodeName() != null)
                        .count()
                    == 3);
    List<Pod> all = pods(client, ns, "trainer");
    assertThat(all).hasSize(4);
    assertThat(all.stream().map(p -> p.getSpec().getNodeName()).filter(n -> n != null))
        .containsExactlyInAnyOrderElementsOf(hosts.subList(0, 3));
    Pod waiting =
        all.stream().filter(p -> p.getSpec().getNodeName() == null).findFirst().orElseThrow();
    PodCondition c = awaitNotScheduled(client, ns, waiting.getMetadata().getName());
    System.out.println("e2e: fourth replica waits: " + c.getMessage());
    assertThat(c.getReason()).isEqualTo("Unschedulable");
    assertThat(c.getMessage()).containsIgnoringCase("anti-affinity");

    node(client, hosts.get(3));
    long joined = System.nanoTime();
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                hosts
                    .get(3)
                    .equals(
                        get(client, ns, waiting.getMetadata().getName()).getSpec().getNodeName()));
    Duration bound = Duration.ofNanos(System.nanoTime() - joined);
    System.out.printf("e2e: fourth replica bound %d ms after its node joined%n", bound.toMillis());
    // The pod may have failed a moment before the event, which then moves it to the backoff queue;
    // an idle queue pops it from there at once (as kube-scheduler's SchedulerPopFromBackoffQ).
    assertThat(bound).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void zoneSpreadWithMaxSkewOne_keepsTheZonesWithinOnePod(KubernetesClient client, TestNamespace ns)
      throws Exception {
    String stem = ns.name() + "-zone-";
    List<String> hosts = List.of(stem + 0, stem + 1, stem + 2, stem + 3);
    List<String> zones = List.of("zone-a", "zone-a", "zone-a", "zone-b");
    for (int i = 0; i < hosts.size(); i++) {
      node(client, hosts.get(i));
      label(client, hosts.get(i), ZONE, ns.name() + "-" + zones.get(i));
    }
    Map<String, String> labels = Map.of("app", "spread");
    for (int i = 0; i < 4; i++) {
      Pod pod =
          gpuPod("spread-" + i, labels, hosts)
              .editSpec()
              .withTopologySpreadConstraints(
                  new TopologySpreadConstraintBuilder()
                      .withMaxSkew(1)
                      .withTopologyKey(ZONE)
                      .withWhenUnsatisfiable("DoNotSchedule")
                      .withLabelSelector(new LabelSelectorBuilder().withMatchLabels(labels).build())
                      .build())
              .endSpec()
              .build();
      client.pods().inNamespace(ns.name()).resource(pod).create();
      String name = "spread-" + i;
      await().atMost(PATIENCE).until(() -> get(client, ns, name).getSpec().getNodeName() != null);
    }
    Map<String, Long> perZone =
        pods(client, ns, "spread").stream()
            .collect(
                Collectors.groupingBy(
                    p -> zones.get(hosts.indexOf(p.getSpec().getNodeName())),
                    Collectors.counting()));
    System.out.println("e2e: pods per zone " + perZone);
    assertThat(perZone).containsEntry("zone-a", 2L).containsEntry("zone-b", 2L);
  }

  @Test
  void notebookWithALateBoundLocalVolume_landsOnTheVolumesNode_andTheClaimIsBound(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String stem = ns.name() + "-vol-";
    List<String> hosts = List.of(stem + 0, stem + 1, stem + 2);
    for (String h : hosts) {
      node(client, h);
    }
    String storageClass = ns.name() + "-local";
    String volume = ns.name() + "-pv";
    client
        .storage()
        .v1()
        .storageClasses()
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(storageClass)
                .endMetadata()
                .withProvisioner("kubernetes.io/no-provisioner")
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build())
        .create();
    try {
      client
          .persistentVolumes()
          .resource(
              new PersistentVolumeBuilder()
                  .withNewMetadata()
                  .withName(volume)
                  .endMetadata()
                  .withNewSpec()
                  .withCapacity(Map.of("storage", new Quantity("10Gi")))
                  .withAccessModes("ReadWriteOnce")
                  .withStorageClassName(storageClass)
                  .withNewLocal()
                  .withPath("/mnt/notebooks")
                  .endLocal()
                  .withNewNodeAffinity()
                  .withNewRequired()
                  .addNewNodeSelectorTerm()
                  .withMatchExpressions(
                      new NodeSelectorRequirement(HOSTNAME, "In", List.of(hosts.get(1))))
                  .endNodeSelectorTerm()
                  .endRequired()
                  .endNodeAffinity()
                  .endSpec()
                  .build())
          .create();
      client
          .persistentVolumeClaims()
          .inNamespace(ns.name())
          .resource(
              new PersistentVolumeClaimBuilder()
                  .withNewMetadata()
                  .withName("notebook-home")
                  .endMetadata()
                  .withNewSpec()
                  .withAccessModes("ReadWriteOnce")
                  .withStorageClassName(storageClass)
                  .withNewResources()
                  .withRequests(Map.of("storage", new Quantity("5Gi")))
                  .endResources()
                  .endSpec()
                  .build())
          .create();
      Pod pod =
          gpuPod("notebook", Map.of("app", "notebook"), hosts)
              .editSpec()
              .addNewVolume()
              .withName("home")
              .withNewPersistentVolumeClaim()
              .withClaimName("notebook-home")
              .endPersistentVolumeClaim()
              .endVolume()
              .endSpec()
              .build();
      client.pods().inNamespace(ns.name()).resource(pod).create();

      await()
          .atMost(PATIENCE)
          .until(() -> get(client, ns, "notebook").getSpec().getNodeName() != null);
      assertThat(get(client, ns, "notebook").getSpec().getNodeName()).isEqualTo(hosts.get(1));
      PersistentVolumeClaim claim =
          await()
              .atMost(PATIENCE)
              .until(
                  () ->
                      client
                          .persistentVolumeClaims()
                          .inNamespace(ns.name())
                          .withName("notebook-home")
                          .get(),
                  c -> c.getStatus() != null && "Bound".equals(c.getStatus().getPhase()));
      assertThat(claim.getSpec().getVolumeName()).isEqualTo(volume);
    } finally {
      client.pods().inNamespace(ns.name()).withName("notebook").withGracePeriod(0).delete();
      client.persistentVolumeClaims().inNamespace(ns.name()).withName("notebook-home").delete();
      client.persistentVolumes().withName(volume).delete();
      client.storage().v1().storageClasses().withName(storageClass).delete();
    }
  }

  @Test
  void removingTheLastSchedulingGate_schedulesThePodWithinASecond(
      KubernetesClient client, TestNamespace ns) throws Exception {
    String host = ns.name() + "-gate-0";
    node(client, host);
    Pod pod =
        gpuPod("gated", Map.of("app", "gated"), List.of(host))
            .editSpec()
            .addNewSchedulingGate()
            .withName("example.com/quota-check")
            .endSchedulingGate()
            .endSpec()
            .build();
    client.pods().inNamespace(ns.name()).resource(pod).create();
    // A gated pod is never tried: it stays unbound however long it waits.
    Thread.sleep(2000);
    Pod gated = get(client, ns, "gated");
    assertThat(gated.getSpec().getNodeName()).isNull();
    scheduled(gated)
        .ifPresent(
            c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("SchedulingGated");
            });

    long ungated = System.nanoTime();
    client
        .pods()
        .inNamespace(ns.name())
        .withName("gated")
        .edit(p -> new PodBuilder(p).editSpec().withSchedulingGates(List.of()).endSpec().build());
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> host.equals(get(client, ns, "gated").getSpec().getNodeName()));
    Duration bound = Duration.ofNanos(System.nanoTime() - ungated);
    System.out.printf("e2e: gated pod bound %d ms after its gate was removed%n", bound.toMillis());
    // The pod may have failed a moment before the event, which then moves it to the backoff queue;
    // an idle queue pops it from there at once (as kube-scheduler's SchedulerPopFromBackoffQ).
    assertThat(bound).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void podWithResourceClaims_isRefusedNamingTheField(KubernetesClient client, TestNamespace ns)
      throws Exception {
    String host = ns.name() + "-dra-0";
    node(client, host);
    Pod pod =
        gpuPod("claims", Map.of("app", "claims"), List.of(host))
            .editSpec()
            .addNewResourceClaim()
            .withName("gpu")
            .withResourceClaimName("some-claim")
            .endResourceClaim()
            .editFirstContainer()
            .editResources()
            .addNewClaim()
            .withName("gpu")
            .endClaim()
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    client.pods().inNamespace(ns.name()).resource(pod).create();
    // The refusal is the PodScheduled condition's message or, when the pod is turned away before
    // a scheduling attempt, an event on the pod.
    String refusal =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> refusal(client, ns, "claims"), Optional::isPresent)
            .orElseThrow();
    System.out.println("e2e: pod with resourceClaims: " + refusal);
    assertThat(refusal).contains("resourceClaims");
    assertThat(get(client, ns, "claims").getSpec().getNodeName()).isNull();
  }

  private static Optional<String> refusal(KubernetesClient client, TestNamespace ns, String pod) {
    Optional<String> condition =
        scheduled(get(client, ns, pod))
            .filter(c -> "False".equals(c.getStatus()) && c.getMessage() != null)
            .map(PodCondition::getMessage)
            .filter(m -> m.contains("resourceClaims"));
    if (condition.isPresent()) {
      return condition;
    }
    return client.v1().events().inNamespace(ns.name()).list().getItems().stream()
        .filter(e -> pod.equals(e.getInvolvedObject().getName()))
        .map(e -> e.getMessage())
        .filter(m -> m != null && m.contains("resourceClaims"))
        .findFirst();
  }
}
