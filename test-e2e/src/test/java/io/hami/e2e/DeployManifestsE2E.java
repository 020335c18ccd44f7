package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.PodLifecycle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shipped manifests ({@code config/deploy}, {@code config/samples}) against the real apiserver:
 * every object passes validation with server-side dry-run (the samples' PodGroups through the
 * {@code scheduling.k8s.io/v1alpha2} API the control plane enables), and the node agent's admission
 * policy holds for a token bound to a pod on a node.
 */
@ExtendWith(ControlPlaneExtension.class)
class DeployManifestsE2E {
  private static final String FIELD_MANAGER = "hami-e2e";
  private static final String SYSTEM_NAMESPACE = "hami-system";

  private static Path repoRoot() {
    return ControlPlaneExtension.moduleDir().toAbsolutePath().getParent();
  }

  private static List<Path> yamlFiles(String dir) throws IOException {
    try (Stream<Path> files = Files.walk(repoRoot().resolve(dir))) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .toList();
    }
  }

  private static List<HasMetadata> load(KubernetesClient client, Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return client.load(in).items();
    }
  }

  private static Resource<HasMetadata> target(
      KubernetesClient client, TestNamespace ns, HasMetadata item) {
    if (item instanceof Namespaced && item.getMetadata().getNamespace() == null) {
      return client.resource(item).inNamespace(ns.name());
    }
    return client.resource(item);
  }

  /**
   * Namespaces are applied for real, since the objects inside them cannot be checked without, each
   * with the {@code default} ServiceAccount that the absent controller-manager would add.
   */
  private static void applyNamespaces(KubernetesClient client, List<HasMetadata> items) {
    for (HasMetadata item : items) {
      if (item instanceof Namespace) {
        client.resource(item).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
        client
            .serviceAccounts()
            .inNamespace(item.getMetadata().getName())
            .resource(
                new ServiceAccountBuilder()
                    .withNewMetadata()
                    .withName("default")
                    .endMetadata()
                    .build())
            .fieldManager(FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply();
      }
    }
  }

  private static void applyAll(KubernetesClient client, String... files) throws IOException {
    for (String f : files) {
      for (HasMetadata item : load(client, repoRoot().resolve(f))) {
        client.resource(item).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      }
    }
  }

  private static void dryRunEverything(KubernetesClient client, TestNamespace ns, String... dirs)
      throws IOException {
    List<HasMetadata> items = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    for (String dir : dirs) {
      for (Path file : yamlFiles(dir)) {
        for (HasMetadata item : load(client, file)) {
          items.add(item);
          sources.add(
              repoRoot().relativize(file)
                  + ": "
                  + item.getKind()
                  + " "
                  + item.getMetadata().getName());
        }
      }
    }
    assertThat(items).as("objects under %s", List.of(dirs)).isNotEmpty();
    applyNamespaces(client, items);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      HasMetadata item = items.get(i);
      if (item instanceof Namespace) {
        continue;
      }
      try {
        HasMetadata applied =
            target(client, ns, item)
                .dryRun()
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        assertThat(applied.getMetadata().getUid()).as(sources.get(i)).isNotBlank();
      } catch (KubernetesClientException e) {
        failures.add(sources.get(i) + " -> " + e.getCode() + " " + e.getMessage());
      }
    }
    assertThat(failures).as("objects the apiserver refused").isEmpty();
  }

  @Test
  void deployManifests_passServerSideDryRun(KubernetesClient client, TestNamespace ns)
      throws IOException {
    dryRunEverything(client, ns, "config/deploy");
  }

  /**
   * The samples' PriorityClasses are created for real first: the apiserver's Priority admission
   * refuses a pod, even in a dry run, whose class does not exist.
   */
  @Test
  void samples_passServerSideDryRun(KubernetesClient client, TestNamespace ns) throws IOException {
    List<HasMetadata> classes = new ArrayList<>();
    for (Path file : yamlFiles("config/samples")) {
      load(client, file).stream().filter(PriorityClass.class::isInstance).forEach(classes::add);
    }
    try {
      for (HasMetadata c : classes) {
        client.resource(c).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      }
      dryRunEverything(client, ns, "config/samples");
    } finally {
      classes.forEach(c -> client.resource(c).delete());
    }
  }

  @Test
  void nodeAgentPolicy_allowsOnlyHamiAnnotationsOnItsOwnNode(
      ControlPlane cp, KubernetesClient admin, TestNamespace ns) throws IOException {
    applyAll(
        admin,
        "config/deploy/common/namespace.yaml",
        "config/deploy/common/node-agent-rbac.yaml",
        "config/deploy/common/node-agent-policy.yaml");
    String own = ns.name() + "-agent-node";
    String other = ns.name() + "-other-node";
    FakeNode.named(own).register(admin);
    FakeNode.named(other).register(admin);
    String podName = ns.name() + "-agent";
    try {
      Pod agent =
          admin
              .pods()
              .inNamespace(SYSTEM_NAMESPACE)
              .resource(
                  new PodBuilder()
                      .withNewMetadata()
                      .withName(podName)
                      .endMetadata()
                      .withNewSpec()
                      .withServiceAccountName("hami-node-agent")
                      .addNewContainer()
                      .withName("agent")
                      .withImage("hami/hami:dev")
                      .endContainer()
                      .endSpec()
                      .build())
              .create();
      PodLifecycle.bind(admin, agent, own);
      // A token bound to a pod on a node carries the node's name, which the policy checks.
      String token =
          admin
              .serviceAccounts()
              .inNamespace(SYSTEM_NAMESPACE)
              .withName("hami-node-agent")
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(600L)
                      .withNewBoundObjectRef()
                      .withApiVersion("v1")
                      .withKind("Pod")
                      .withName(podName)
                      .withUid(agent.getMetadata().getUid())
                      .endBoundObjectRef()
                      .endSpec()
                      .build())
              .getStatus()
              .getToken();

      try (KubernetesClient agentClient = cp.newTokenClient(token)) {
        // Bindings and policies reach the authorizer and admission through informers.
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(
                            agentClient
                                .nodes()
                                .withName(own)
                                .edit(
                                    n -> {
                                      n.getMetadata().getAnnotations().put("hami.io/e2e", "ok");
                                      return n;
                                    })
                                .getMetadata()
                                .getAnnotations())
                        .containsEntry("hami.io/e2e", "ok"));
        // The policy reaches admission through an informer: wait until it refuses a non-hami
        // annotation on the agent's own node (allowed by RBAC alone) before touching the other
        // node,
        // so that no write slips through to it before the policy is in force.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThatThrownBy(
                            () ->
                                agentClient
                                    .nodes()
                                    .withName(own)
                                    .edit(
                                        n -> {
                                          // A new value each try: rewriting an unchanged value is
                                          // no change.
                                          n.getMetadata()
                                              .getAnnotations()
                                              .put(
                                                  "example.com/not-hami",
                                                  Long.toString(System.nanoTime()));
                                          return n;
                                        }))
                        .isInstanceOfSatisfying(
                            KubernetesClientException.class,
                            e -> assertThat(e.getCode()).isEqualTo(403)));
        assertThatThrownBy(
                () ->
                    agentClient
                        .nodes()
                        .withName(other)
                        .edit(
                            n -> {
                              n.getMetadata().getAnnotations().put("hami.io/e2e", "x");
                              return n;
                            }))
            .isInstanceOfSatisfying(
                KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403))
            .hasMessageContaining(
                "hami node agent on node '" + own + "' may not change node '" + other + "'");
        assertThat(admin.nodes().withName(other).get().getMetadata().getAnnotations())
            .doesNotContainKey("hami.io/e2e");
      }
    } finally {
      admin.pods().inNamespace(SYSTEM_NAMESPACE).withName(podName).withGracePeriod(0).delete();
      admin.nodes().withName(own).delete();
      admin.nodes().withName(other).delete();
    }
  }
}
