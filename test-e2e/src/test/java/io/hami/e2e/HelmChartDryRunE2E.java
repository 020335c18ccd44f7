package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.hami.cmd.cluster.Commands;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Helm chart {@code config/helm/hami}, rendered by helm itself ({@code bin/build-helm.sh} finds
 * or builds it) for several sets of values, applies with server-side dry-run: every object passes
 * the real apiserver's validation and admission. With its defaults the chart renders the objects of
 * the plain manifests in {@code config/deploy}.
 */
@ExtendWith(ControlPlaneExtension.class)
class HelmChartDryRunE2E {
  private static final String FIELD_MANAGER = "hami-e2e";
  private static final Duration HELM_BUILD_TIMEOUT = Duration.ofMinutes(30);
  private static final String CERT_MANAGER_GROUP = "cert-manager.io";

  @TempDir static Path tmp;
  private static @Nullable Path helm;
  private static @Nullable String helmUnavailable;

  private static Path repoRoot() {
    return ControlPlaneExtension.moduleDir().toAbsolutePath().getParent();
  }

  @BeforeAll
  static void findHelm() throws IOException {
    Path script = ControlPlaneExtension.moduleDir().resolve("bin/build-helm.sh");
    try {
      Commands.Result r =
          Commands.run(
              List.of("bash", script.toString()),
              ControlPlaneExtension.moduleDir(),
              HELM_BUILD_TIMEOUT);
      helm =
          r.stdout()
              .lines()
              .filter(l -> l.startsWith("HELM="))
              .map(l -> Path.of(l.substring("HELM=".length())))
              .reduce((a, b) -> b)
              .orElseThrow(
                  () ->
                      new IOException(
                          script
                              + " did not report HELM; its output:\n"
                              + r.stdout()
                              + r.stderr()));
    } catch (IOException e) {
      // Without Go (control-plane binaries given through KUBE_APISERVER and ETCD) helm cannot be
      // built.
      if (e.getMessage() != null && e.getMessage().contains("go is not installed")) {
        helmUnavailable =
            "no helm: set HELM, put helm 3 on PATH or install Go to build it (" + script + ")";
        return;
      }
      throw e;
    }
  }

  private static Path helm() {
    assumeTrue(helm != null, helmUnavailable);
    return helm;
  }

  /** Renders the chart with {@code values} (YAML) into {@code namespace}. */
  private static String render(KubernetesClient client, String namespace, String values)
      throws IOException {
    Path file = Files.createTempFile(tmp, "values-", ".yaml");
    Files.writeString(file, values, StandardCharsets.UTF_8);
    String kubeVersion = client.getKubernetesVersion().getGitVersion();
    Commands.Result r =
        Commands.run(
            List.of(
                helm().toString(),
                "template",
                "hami",
                repoRoot().resolve("config/helm/hami").toString(),
                "--namespace",
                namespace,
                "--kube-version",
                kubeVersion,
                "--values",
                file.toString()),
            tmp,
            Duration.ofMinutes(2));
    return r.stdout();
  }

  private static List<HasMetadata> load(KubernetesClient client, String yaml) {
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  private static String id(HasMetadata o) {
    return o.getKind() + " " + o.getMetadata().getName();
  }

  private static Resource<HasMetadata> target(
      KubernetesClient client, String namespace, HasMetadata item) {
    return item instanceof Namespaced
        ? client.resource(item).inNamespace(namespace)
        : client.resource(item);
  }

  static Stream<Arguments> values() {
    return Stream.of(
        Arguments.of("defaults", "{}\n"),
        Arguments.of(
            "fake GPUs", "nodeAgent:\n  fakeGpus: \"4xNVIDIA-A100-SXM4-80GB:81920MiB,numa=0-1\"\n"),
        Arguments.of(
            "one replica, own scheduler name, pull secret",
            """
            schedulerName: gpu-scheduler
            imagePullSecrets: [{name: regcred}]
            scheduler:
              replicas: 1
              leaderElect: false
              tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]
              extraArgs: ["--kube-qps=100"]
            webhook:
              failurePolicy: Fail
              excludeNamespaces: [kube-system, monitoring]
            nodeAgent:
              runtimeClassName: nvidia
              admissionPolicy: {enabled: false}
            devices:
              nvidia: {deviceSplitCount: 4, defaultMemory: 2048}
            """),
        Arguments.of("scheduler only", "webhook: {enabled: false}\nnodeAgent: {enabled: false}\n"),
        Arguments.of("cert-manager", "webhook:\n  certManager: {enabled: true}\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("values")
  void renderedChart_passesServerSideDryRun(
      String name, String values, KubernetesClient client, TestNamespace ns) throws IOException {
    List<HasMetadata> items = load(client, render(client, ns.name(), values));
    assertThat(items).as("objects rendered").isNotEmpty();

    List<String> failures = new ArrayList<>();
    List<String> checked = new ArrayList<>();
    List<String> noApi = new ArrayList<>();
    for (HasMetadata item : items) {
      if (item.getApiVersion().startsWith(CERT_MANAGER_GROUP + "/")) {
        // cert-manager's CRDs are not installed on this control plane.
        noApi.add(id(item));
        continue;
      }
      try {
        HasMetadata applied =
            target(client, ns.name(), item)
                .dryRun()
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        assertThat(applied.getMetadata().getUid()).as(id(item)).isNotBlank();
        checked.add(id(item));
      } catch (KubernetesClientException e) {
        failures.add(id(item) + " -> " + e.getCode() + " " + e.getMessage());
      }
    }
    System.out.printf(
        "helm chart (%s): %d objects accepted by server-side dry-run%s%n",
        name,
        checked.size(),
        noApi.isEmpty() ? "" : "; not checked (cert-manager CRDs absent): " + noApi);
    assertThat(failures).as("objects the apiserver refused").isEmpty();
    if (name.equals("cert-manager")) {
      assertThat(noApi)
          .containsExactlyInAnyOrder("Issuer hami-webhook-selfsigned", "Certificate hami-webhook");
      assertThat(checked).doesNotContain("Secret hami-webhook-tls");
    } else {
      assertThat(noApi).isEmpty();
    }
  }

  @Test
  void defaultChart_rendersTheObjectsOfTheDeployManifests(KubernetesClient client)
      throws IOException {
    Set<String> chart = new TreeSet<>();
    for (HasMetadata o : load(client, render(client, "hami-system", "{}\n"))) {
      chart.add(id(o));
    }
    Set<String> manifests = new TreeSet<>();
    List<Path> files = new ArrayList<>();
    for (String dir : List.of("config/deploy/common", "config/deploy/gpu")) {
      try (Stream<Path> s = Files.list(repoRoot().resolve(dir))) {
        s.filter(
                f ->
                    f.toString().endsWith(".yaml")
                        && !f.getFileName().toString().equals("kustomization.yaml"))
            .forEach(files::add);
      }
    }
    for (Path f : files) {
      try (InputStream in = Files.newInputStream(f)) {
        client.load(in).items().stream()
            .filter(o -> !(o instanceof Namespace))
            .forEach(o -> manifests.add(id(o)));
      }
    }
    // The chart makes the webhook's serving certificate itself; the plain manifests leave that
    // to config/deploy/webhook-certs.sh, and the release namespace to helm --create-namespace.
    Set<String> expected = new TreeSet<>(manifests);
    expected.add("Secret hami-webhook-tls");
    assertThat(chart).isEqualTo(expected);
  }

  @Test
  void defaultChart_givesTheWebhookTheCaThatSignedItsCertificate(KubernetesClient client)
      throws Exception {
    List<HasMetadata> items = load(client, render(client, "hami-system", "{}\n"));
    MutatingWebhookConfiguration mwc =
        items.stream()
            .filter(MutatingWebhookConfiguration.class::isInstance)
            .map(MutatingWebhookConfiguration.class::cast)
            .findFirst()
            .orElseThrow();
    Secret secret =
        items.stream()
            .filter(Secret.class::isInstance)
            .map(Secret.class::cast)
            .findFirst()
            .orElseThrow();

    assertThat(mwc.getWebhooks())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getClientConfig().getCaBundle())
                  .isEqualTo(secret.getData().get("ca.crt"));
              assertThat(w.getClientConfig().getService().getNamespace()).isEqualTo("hami-system");
            });
    assertThat(secret.getData()).containsKeys("tls.crt", "tls.key", "ca.crt");
    X509Certificate ca = x509(secret.getData().get("ca.crt"));
    X509Certificate serving = x509(secret.getData().get("tls.crt"));
    serving.verify(ca.getPublicKey());
    assertThat(serving.getSubjectAlternativeNames())
        .extracting(san -> (Object) san.get(1))
        .contains((Object) "hami-scheduler.hami-system.svc");
  }

  private static X509Certificate x509(String base64Pem) throws Exception {
    byte[] pem = Base64.getDecoder().decode(base64Pem);
    return (X509Certificate)
        CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
  }
}
