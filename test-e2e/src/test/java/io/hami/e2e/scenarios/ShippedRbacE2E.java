package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.FakeNode;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Kubeconfig;
import io.hami.cmd.cluster.PodLifecycle;
import io.hami.e2e.ControlPlaneExtension;
import io.hami.e2e.TestNamespace;
import io.hami.framework.runtime.ClientRequestMetrics;
import io.hami.model.Annotations;
import io.hami.nodeagent.nvml.GpuInfo;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.api.ThrowableAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped RBAC ({@code config/deploy/common}) is enough and not more: the scheduler and a node
 * agent, each on a token of its shipped ServiceAccount, place and allocate a GPU pod without one
 * refused request, and each token is refused what its component has no use for: the node agent's
 * admission policies keep it to its own Node and the pods bound to it, and to hami.io/ annotations.
 */
@ExtendWith(ControlPlaneExtension.class)
class ShippedRbacE2E {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String SYSTEM_NAMESPACE = "hami-system";
  private static final String FIELD_MANAGER = "hami-e2e";
  private static final String[] SHIPPED = {
    "config/deploy/common/namespace.yaml",
    "config/deploy/common/scheduler-rbac.yaml",
    "config/deploy/common/node-agent-rbac.yaml",
    "config/deploy/common/node-agent-policy.yaml",
  };

  @TempDir Path dir;
  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final List<GpuNode> nodes = new ArrayList<>();

  @AfterEach
  void stopAll(KubernetesClient admin, TestNamespace ns) throws Exception {
    try {
      Teardown.checkInvariantsAndStop(admin, ns.name(), nodes);
    } finally {
      for (int i = cleanup.size() - 1; i >= 0; i--) {
        cleanup.get(i).close();
      }
    }
  }

  private static void applyShipped(KubernetesClient admin) throws IOException {
    Path root = ControlPlaneExtension.moduleDir().toAbsolutePath().getParent();
    for (String f : SHIPPED) {
      try (InputStream in = Files.newInputStream(root.resolve(f))) {
        for (HasMetadata item : admin.load(in).items()) {
          admin.resource(item).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
        }
      }
    }
  }

  /** A client on {@code token} whose every response is counted by {@code requests}. */
  private static KubernetesClient tokenClient(
      ControlPlane cp, String token, ClientRequestMetrics requests) throws IOException {
    Config config =
        Config.fromKubeconfig(Kubeconfig.withToken(cp.server(), cp.pki().caPem(), token));
    return requests.clientBuilder(config).build();
  }

  private static String token(KubernetesClient admin, String account, @Nullable Pod boundTo) {
    TokenRequestBuilder b = new TokenRequestBuilder();
    var spec = b.withNewSpec().withExpirationSeconds(3600L);
    if (boundTo != null) {
      spec.withNewBoundObjectRef()
          .withApiVersion("v1")
          .withKind("Pod")
          .withName(boundTo.getMetadata().getName())
          .withUid(boundTo.getMetadata().getUid())
          .endBoundObjectRef();
    }
    spec.endSpec();
    return admin
        .serviceAccounts()
        .inNamespace(SYSTEM_NAMESPACE)
        .withName(account)
        .tokenRequest(b.build())
        .getStatus()
        .getToken();
  }

  /** The agent's pod, bound to {@code node}, whose bound token names the node to admission. */
  private Pod agentPod(KubernetesClient admin, String name, String node) {
    Pod pod =
        admin
            .pods()
            .inNamespace(SYSTEM_NAMESPACE)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
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
    cleanup.add(
        () ->
            admin.pods().inNamespace(SYSTEM_NAMESPACE).withName(name).withGracePeriod(0).delete());
    PodLifecycle.bind(admin, pod, node);
    return admin.pods().inNamespace(SYSTEM_NAMESPACE).withName(name).get();
  }

  /** Responses by {@code "verb resource code"}. */
  private static Map<String, Double> responses(ClientRequestMetrics requests) {
    PrometheusRegistry registry = new PrometheusRegistry();
    requests.register(registry);
    Map<String, Double> out = new TreeMap<>();
    for (MetricSnapshot s : registry.scrape()) {
      if (s instanceof CounterSnapshot c) {
        for (CounterSnapshot.CounterDataPointSnapshot p : c.getDataPoints()) {
          var l = p.getLabels();
          out.merge(
              l.get("verb") + " " + l.get("resource") + " " + l.get("code"),
              p.getValue(),
              Double::sum);
        }
      }
    }
    return out;
  }

  private static Map<String, Double> refused(Map<String, Double> responses) {
    Map<String, Double> out = new TreeMap<>();
    responses.forEach(
        (k, v) -> {
          if (k.endsWith(" 401") || k.endsWith(" 403")) {
            out.put(k, v);
          }
        });
    return out;
  }

  private static boolean allowed(
      KubernetesClient client, String verb, String resource, String namespace) {
    String sub = null;
    String res = resource;
    int slash = resource.indexOf('/');
    if (slash > 0) {
      res = resource.substring(0, slash);
      sub = resource.substring(slash + 1);
    }
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withNewResourceAttributes()
            .withVerb(verb)
            .withResource(res)
            .withSubresource(sub)
            .withNamespace(namespace)
            .endResourceAttributes()
            .endSpec()
            .build();
    return client
        .authorization()
        .v1()
        .selfSubjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  private static void assertForbidden(ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }

  @Test
  void schedulerAndNodeAgent_onShippedServiceAccounts_placeAndAllocateAGpuPod_andAreRefusedTheRest(
      ControlPlane cp, KubernetesClient admin, TestNamespace ns) throws Exception {
    applyShipped(admin);
    String nodeName = ns.name() + "-gpu";
    FakeNode.named(nodeName).register(admin);
    cleanup.add(() -> admin.nodes().withName(nodeName).delete());
    String otherNode = ns.name() + "-other";
    FakeNode.named(otherNode).register(admin);
    cleanup.add(() -> admin.nodes().withName(otherNode).delete());

    ClientRequestMetrics schedulerRequests = new ClientRequestMetrics();
    KubernetesClient schedulerClient =
        tokenClient(cp, token(admin, "hami-scheduler", null), schedulerRequests);
    cleanup.add(schedulerClient);
    Pod agentPod = agentPod(admin, ns.name() + "-agent", nodeName);
    ClientRequestMetrics agentRequests = new ClientRequestMetrics();
    KubernetesClient agentClient =
        tokenClient(cp, token(admin, "hami-node-agent", agentPod), agentRequests);
    cleanup.add(agentClient);

    // Bindings reach the authorizer, and the policy admission, through informers.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                allowed(schedulerClient, "create", "bindings", ns.name())
                    && allowed(agentClient, "patch", "nodes", ""));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertForbidden(
                    () ->
                        agentClient
                            .nodes()
                            .withName(otherNode)
                            .edit(
                                n -> {
                                  n.getMetadata()
                                      .getAnnotations()
                                      .put("hami.io/e2e", Long.toString(System.nanoTime()));
                                  return n;
                                })));
    // A pod on the other node, which the agent may read but not change.
    Pod foreign =
        admin
            .pods()
            .inNamespace(ns.name())
            .resource(GpuPods.named("foreign").gpu(1, 1000, 10).build())
            .create();
    PodLifecycle.bind(admin, foreign, otherNode);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertForbidden(
                    () ->
                        agentClient
                            .pods()
                            .inNamespace(ns.name())
                            .withName("foreign")
                            .edit(
                                p -> {
                                  p.getMetadata()
                                      .getAnnotations()
                                      .put(
                                          Annotations.BIND_PHASE, Long.toString(System.nanoTime()));
                                  return p;
                                })));
    Map<String, Double> warmUp = refused(responses(agentRequests));

    Scheduler scheduler = Scheduler.start(schedulerClient);
    cleanup.add(scheduler);
    GpuInfo gpu = GpuNode.gpu(0, 15360);
    GpuNode node = GpuNode.startRegistered(admin, agentClient, dir, nodeName, 10, List.of(gpu));
    nodes.add(node);

    Pod created =
        admin
            .pods()
            .inNamespace(ns.name())
            .resource(GpuPods.named("rbac").gpu(1, 4000, 30).on(nodeName).build())
            .create();
    Pod pod =
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> admin.pods().inNamespace(ns.name()).withName("rbac").get(),
                p ->
                    p.getMetadata().getAnnotations() != null
                        && "success"
                            .equals(p.getMetadata().getAnnotations().get(Annotations.BIND_PHASE))
                        && "Running".equals(p.getStatus().getPhase()));

    assertThat(pod.getSpec().getNodeName()).isEqualTo(nodeName);
    assertThat(pod.getMetadata().getAnnotations())
        .containsEntry(Annotations.VGPU_NODE, nodeName)
        .containsKey(Annotations.VGPU_DEVICES_ALLOCATED);
    assertThat(pod.getStatus().getConditions())
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo("PodScheduled");
              assertThat(c.getStatus()).isEqualTo("True");
            });
    await().atMost(PATIENCE).until(() -> !node.locked());
    assertThat(node.allocation(created.getMetadata().getUid())).containsKey("cuda");
    assertThat(node.allocateErrors()).isEmpty();
    List<Event> events =
        await()
            .atMost(PATIENCE)
            .until(
                () ->
                    admin.events().v1().events().inNamespace(ns.name()).list().getItems().stream()
                        .filter(
                            e ->
                                e.getRegarding() != null
                                    && "rbac".equals(e.getRegarding().getName()))
                        .toList(),
                l -> l.stream().anyMatch(e -> "Scheduled".equals(e.getReason())));
    System.out.println("e2e: events of the pod: " + events.stream().map(Event::getReason).toList());

    Map<String, Double> sched = responses(schedulerRequests);
    Map<String, Double> agent = responses(agentRequests);
    System.out.println("e2e: scheduler responses: " + sched);
    System.out.println("e2e: node agent responses: " + agent);
    Map<String, Double> schedRefused = new TreeMap<>(refused(sched));
    // The API server refuses Events about pods of namespaces that earlier tests are deleting (403
    // from NamespaceLifecycle); the pod's own Scheduled Event above shows the role allows Events.
    schedRefused.remove("create events 403");
    assertThat(schedRefused).as("requests of the scheduler refused").isEmpty();
    assertThat(refused(agent)).as("requests of the node agent refused").isEqualTo(warmUp);
    // The node lock was taken by the scheduler and released by the agent, each with its own token.
    assertThat(sched).containsKeys("patch nodes 200", "create bindings 201");
    assertThat(agent).containsKeys("patch nodes 200", "patch pods 200");

    // Preemption deletes its victims, as kube-scheduler's own role allows.
    assertThat(allowed(schedulerClient, "delete", "pods", ns.name()))
        .as("scheduler may delete pods (preemption victims)")
        .isTrue();

    // Not more: the scheduler.
    for (String[] q :
        new String[][] {
          {"get", "secrets", SYSTEM_NAMESPACE},
          {"list", "secrets", ""},
          {"delete", "nodes", ""},
          {"create", "pods", ns.name()},
          {"delete", "namespaces", ""},
          {"update", "nodes/status", ""},
          {"create", "serviceaccounts/token", SYSTEM_NAMESPACE},
          {"create", "clusterrolebindings", ""},
        }) {
      assertThat(allowed(schedulerClient, q[0], q[1], q[2]))
          .as("scheduler may %s %s in '%s'", q[0], q[1], q[2])
          .isFalse();
    }
    assertForbidden(() -> schedulerClient.secrets().inNamespace(SYSTEM_NAMESPACE).list());
    assertForbidden(() -> schedulerClient.nodes().withName(otherNode).delete());
    assertForbidden(
        () ->
            schedulerClient
                .pods()
                .inNamespace(ns.name())
                .resource(GpuPods.named("by-scheduler").gpu(1, 1000, 10).build())
                .create());

    // Not more: the node agent.
    for (String[] q :
        new String[][] {
          {"get", "secrets", SYSTEM_NAMESPACE}, {"list", "secrets", ""}, {"delete", "nodes", ""},
          {"create", "nodes", ""}, {"create", "pods", ns.name()}, {"delete", "pods", ns.name()},
          {"create", "pods/binding", ns.name()}, {"update", "nodes/status", ""},
        }) {
      assertThat(allowed(agentClient, q[0], q[1], q[2]))
          .as("node agent may %s %s in '%s'", q[0], q[1], q[2])
          .isFalse();
    }
    assertForbidden(() -> agentClient.nodes().withName(otherNode).delete());
    assertForbidden(
        () ->
            agentClient
                .nodes()
                .withName(nodeName)
                .edit(
                    n -> {
                      n.getMetadata().getAnnotations().put("example.com/not-hami", "x");
                      return n;
                    }));
    assertThat(admin.nodes().withName(otherNode).get().getMetadata().getAnnotations())
        .doesNotContainKey("hami.io/e2e");
    assertThatThrownBy(
            () ->
                agentClient
                    .pods()
                    .inNamespace(ns.name())
                    .withName("foreign")
                    .edit(
                        p -> {
                          p.getMetadata().getAnnotations().put(Annotations.BIND_PHASE, "success");
                          return p;
                        }))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403))
        .hasMessageContaining("may not change pod 'foreign' of node '" + otherNode + "'");
    assertThat(
            admin
                .pods()
                .inNamespace(ns.name())
                .withName("foreign")
                .get()
                .getMetadata()
                .getAnnotations())
        .doesNotContainKey(Annotations.BIND_PHASE);
    // On its own node's pod, only hami.io/ annotations.
    assertForbidden(
        () ->
            agentClient
                .pods()
                .inNamespace(ns.name())
                .withName("rbac")
                .edit(
                    p -> {
                      p.getMetadata().getAnnotations().put("example.com/not-hami", "x");
                      return p;
                    }));
    assertForbidden(
        () ->
            agentClient
                .pods()
                .inNamespace(ns.name())
                .withName("rbac")
                .edit(
                    p -> {
                      p.getMetadata().setLabels(Map.of("example.com/label", "x"));
                      return p;
                    }));
  }
}
