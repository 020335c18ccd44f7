package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.Pki;
import io.hami.webhook.WebhookConfig;
import io.hami.webhook.WebhookServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real admission webhook behind the shipped MutatingWebhookConfiguration, called by the real
 * apiserver over TLS. Only the client config is changed (a loopback URL instead of the Service) and
 * the test namespace is added to its namespace selector.
 */
@ExtendWith(ControlPlaneExtension.class)
class WebhookE2E {
  private static WebhookServer server;
  private static String configName;

  @BeforeAll
  static void startWebhook(ControlPlane cp, KubernetesClient client, TestNamespace ns)
      throws Exception {
    Pki.CertAndKey serving =
        cp.pki().issueServing("hami-webhook", List.of("hami-scheduler.hami-system.svc"));
    server =
        WebhookServer.builder()
            .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .certificate(serving.cert(), serving.key())
            .config(WebhookConfig.defaults())
            .client(client)
            .build();
    server.startAsync().awaitRunning(60, TimeUnit.SECONDS);

    MutatingWebhookConfiguration shipped;
    try (InputStream in =
        Files.newInputStream(
            ControlPlaneExtension.moduleDir()
                .toAbsolutePath()
                .getParent()
                .resolve("config/deploy/common/webhook.yaml"))) {
      shipped =
          client.load(in).items().stream()
              .filter(MutatingWebhookConfiguration.class::isInstance)
              .map(MutatingWebhookConfiguration.class::cast)
              .findFirst()
              .orElseThrow();
    }
    configName = ns.name() + "-hami-webhook";
    shipped.getMetadata().setName(configName);
    String caBundle =
        Base64.getEncoder().encodeToString(cp.pki().caPem().getBytes(StandardCharsets.UTF_8));
    shipped
        .getWebhooks()
        .forEach(
            w -> {
              w.setClientConfig(
                  new WebhookClientConfigBuilder()
                      .withUrl("https://127.0.0.1:" + server.address().getPort() + "/webhook")
                      .withCaBundle(caBundle)
                      .build());
              w.getNamespaceSelector()
                  .getMatchExpressions()
                  .add(
                      new LabelSelectorRequirementBuilder()
                          .withKey("kubernetes.io/metadata.name")
                          .withOperator("In")
                          .withValues(ns.name())
                          .build());
            });
    client.resource((HasMetadata) shipped).create();
  }

  @AfterAll
  static void stopWebhook(KubernetesClient client) throws Exception {
    if (configName != null) {
      client
          .admissionRegistration()
          .v1()
          .mutatingWebhookConfigurations()
          .withName(configName)
          .delete();
    }
    if (server != null) {
      server.stopAsync().awaitTerminated(30, TimeUnit.SECONDS);
    }
  }

  private static Pod pod(String name, boolean gpu, boolean privileged) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("nvidia/cuda:12.4.0-base-ubuntu22.04")
        .withNewSecurityContext()
        .withPrivileged(privileged)
        .endSecurityContext()
        .withNewResources()
        .withLimits(gpu ? Map.of("nvidia.com/gpu", new Quantity("1")) : Map.of())
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  void gpuPod_isSentToTheHamiScheduler_andOthersAreLeftAlone(
      KubernetesClient client, TestNamespace ns) {
    AtomicInteger attempt = new AtomicInteger();
    // failurePolicy is Ignore: until the apiserver has seen the configuration, pods pass unchanged.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Pod created =
                  client
                      .pods()
                      .inNamespace(ns.name())
                      .resource(pod("gpu-" + attempt.incrementAndGet(), true, false))
                      .create();
              assertThat(created.getSpec().getSchedulerName())
                  .isEqualTo(WebhookConfig.DEFAULT_SCHEDULER_NAME);
            });

    Pod plain = client.pods().inNamespace(ns.name()).resource(pod("no-gpu", false, false)).create();

    assertThat(plain.getSpec().getSchedulerName()).isEqualTo("default-scheduler");
  }

  @Test
  void privilegedGpuContainer_isDeniedNamingTheContainer(
      KubernetesClient client, TestNamespace ns) {
    AtomicInteger attempt = new AtomicInteger();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThatThrownBy(
                        () ->
                            client
                                .pods()
                                .inNamespace(ns.name())
                                .resource(
                                    pod("privileged-" + attempt.incrementAndGet(), true, true))
                                .create())
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("container main is privileged"));
  }
}
