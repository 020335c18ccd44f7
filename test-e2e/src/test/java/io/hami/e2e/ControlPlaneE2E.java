package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.Commands;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.Pki;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The control plane is the pinned release, and its admission chain calls policies and webhooks. */
@ExtendWith(ControlPlaneExtension.class)
class ControlPlaneE2E {

  private static String pinnedVersion() throws IOException {
    List<String> goMod =
        Files.readAllLines(ControlPlaneExtension.moduleDir().resolve("controlplane/go.mod"));
    return goMod.stream()
        .map(String::trim)
        .filter(l -> l.startsWith("k8s.io/kubernetes "))
        .map(l -> l.split("\\s+")[1])
        .findFirst()
        .orElseThrow();
  }

  @Test
  void apiserver_servesTheVersionOfItsBinary_andIsReady(ControlPlane cp, KubernetesClient client)
      throws IOException {
    String served = client.getKubernetesVersion().getGitVersion();
    Path binary = cp.binaries().kubeApiserver();
    String printed =
        Commands.run(
                List.of(binary.toString(), "--version"), binary.getParent(), Duration.ofSeconds(30))
            .stdout()
            .trim();

    assertThat(printed).isEqualTo("Kubernetes " + served);
    if (binary.getFileName().toString().startsWith("kube-apiserver-v")) {
      // Built by bin/build-control-plane.sh: the release pinned in controlplane/go.mod.
      assertThat(served).isEqualTo(pinnedVersion());
    }
    assertThat(client.raw("/readyz")).isEqualTo("ok");
    assertThat(client.raw("/livez?verbose")).contains("[+]etcd ok");
  }

  @Test
  void adminKubeconfig_isAMemberOfSystemMasters(ControlPlane cp) throws IOException {
    String kubeconfig = Files.readString(cp.kubeconfig());

    assertThat(kubeconfig).contains("server: " + cp.server()).contains("client-certificate-data:");
    try (KubernetesClient fromFile =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(cp.kubeconfig().toFile()))
            .build()) {
      assertThat(fromFile.nodes().list().getItems()).isNotNull();
      assertThat(fromFile.rbac().clusterRoles().withName("cluster-admin").get())
          .as("bootstrap roles")
          .isNotNull();
    }
  }

  @Test
  void validatingAdmissionPolicy_isEnforced(KubernetesClient client, TestNamespace ns) {
    String name = ns.name() + "-no-forbidden-key";
    List<HasMetadata> policy =
        client
            .load(
                new ByteArrayInputStream(
                    """
                    apiVersion: admissionregistration.k8s.io/v1
                    kind: ValidatingAdmissionPolicy
                    metadata:
                      name: %1$s
                    spec:
                      failurePolicy: Fail
                      matchConstraints:
                        resourceRules:
                        - apiGroups: [""]
                          apiVersions: [v1]
                          operations: [CREATE, UPDATE]
                          resources: [configmaps]
                      validations:
                      - expression: "!has(object.data) || !('forbidden-by-policy' in object.data)"
                        message: configmaps here may not carry forbidden-by-policy
                    ---
                    apiVersion: admissionregistration.k8s.io/v1
                    kind: ValidatingAdmissionPolicyBinding
                    metadata:
                      name: %1$s
                    spec:
                      policyName: %1$s
                      validationActions: [Deny]
                      matchResources:
                        namespaceSelector:
                          matchLabels:
                            kubernetes.io/metadata.name: %2$s
                    """
                        .formatted(name, ns.name())
                        .getBytes(StandardCharsets.UTF_8)))
            .items();
    policy.forEach(o -> client.resource(o).create());
    try {
      AtomicInteger attempt = new AtomicInteger();
      // Policies reach the admission plugin through an informer; retry until it denies.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(
                          () ->
                              createConfigMap(
                                  client,
                                  ns,
                                  "denied-" + attempt.incrementAndGet(),
                                  "forbidden-by-policy"))
                      .isInstanceOfSatisfying(
                          KubernetesClientException.class,
                          e -> assertThat(e.getCode()).isEqualTo(422))
                      .hasMessageContaining("configmaps here may not carry forbidden-by-policy"));

      createConfigMap(client, ns, "allowed-by-policy", "fine");
      assertThat(client.configMaps().inNamespace(ns.name()).withName("allowed-by-policy").get())
          .isNotNull();
    } finally {
      policy.forEach(o -> client.resource(o).delete());
    }
  }

  @Test
  void validatingWebhook_isCalledOverTlsAndItsAnswerHolds(
      ControlPlane cp, KubernetesClient client, TestNamespace ns) throws Exception {
    Pki.CertAndKey serving = cp.pki().issueServing("e2e-webhook", List.of("e2e-webhook"));
    AtomicInteger calls = new AtomicInteger();
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(Pki.serverContext(serving)));
    server.createContext(
        "/validate",
        exchange -> {
          calls.incrementAndGet();
          AdmissionReview review;
          try (InputStream in = exchange.getRequestBody()) {
            review = client.getKubernetesSerialization().unmarshal(in, AdmissionReview.class);
          }
          Map<?, ?> data =
              (Map<?, ?>)
                  ((Map<?, ?>)
                          client
                              .getKubernetesSerialization()
                              .convertValue(review.getRequest().getObject(), Map.class))
                      .get("data");
          boolean allowed = data == null || !data.containsKey("forbidden-by-webhook");
          AdmissionResponseBuilder response =
              new AdmissionResponseBuilder()
                  .withUid(review.getRequest().getUid())
                  .withAllowed(allowed);
          if (!allowed) {
            response.withStatus(
                new StatusBuilder()
                    .withCode(403)
                    .withMessage("the e2e webhook refuses this key")
                    .build());
          }
          byte[] body =
              client
                  .getKubernetesSerialization()
                  .asJson(
                      new AdmissionReviewBuilder()
                          .withApiVersion("admission.k8s.io/v1")
                          .withKind("AdmissionReview")
                          .withResponse(response.build())
                          .build())
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    String name = ns.name() + "-webhook";
    String config =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingWebhookConfiguration
        metadata:
          name: %s
        webhooks:
        - name: e2e.hami.io
          admissionReviewVersions: [v1]
          sideEffects: None
          failurePolicy: Fail
          timeoutSeconds: 5
          clientConfig:
            url: https://127.0.0.1:%d/validate
            caBundle: %s
          namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: %s
          rules:
          - apiGroups: [""]
            apiVersions: [v1]
            operations: [CREATE]
            resources: [configmaps]
        """
            .formatted(
                name,
                server.getAddress().getPort(),
                Base64.getEncoder()
                    .encodeToString(cp.pki().caPem().getBytes(StandardCharsets.UTF_8)),
                ns.name());
    HasMetadata webhook = client.getKubernetesSerialization().unmarshal(config);
    client.resource(webhook).create();
    try {
      AtomicInteger attempt = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(
                          () ->
                              createConfigMap(
                                  client,
                                  ns,
                                  "hooked-" + attempt.incrementAndGet(),
                                  "forbidden-by-webhook"))
                      .isInstanceOfSatisfying(
                          KubernetesClientException.class,
                          e -> assertThat(e.getCode()).isEqualTo(403))
                      .hasMessageContaining("the e2e webhook refuses this key"));
      int before = calls.get();

      createConfigMap(client, ns, "passes-webhook", "fine");

      assertThat(calls.get()).as("webhook calls for an allowed object").isEqualTo(before + 1);
      assertThat(client.configMaps().inNamespace(ns.name()).withName("passes-webhook").get())
          .isNotNull();
    } finally {
      client.resource(webhook).delete();
      server.stop(0);
    }
  }

  private static void createConfigMap(
      KubernetesClient client, TestNamespace ns, String name, String key) {
    client
        .configMaps()
        .inNamespace(ns.name())
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addToData(key, "x")
                .build())
        .create();
  }
}
