package io.hami.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Helm chart renders the same objects as the plain manifests. Rendering needs {@code helm} (on
 * PATH or in {@code $HELM}); without it only the values are compared.
 */
class HelmChartTest {

  private static final Path CHART = ShippedManifestsTest.CONFIG.resolve("helm/hami");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final YAMLMapper YAML = YAMLMapper.builder().build();

  @Test
  void chartDeviceDefaults_equalTheShippedDeviceConfig() throws IOException {
    JsonNode values = YAML.readTree(Files.readString(CHART.resolve("values.yaml")));
    JsonNode shipped =
        YAML.readTree(Files.readString(ShippedManifestsTest.CONFIG.resolve("device-config.yaml")));
    assertThat(values.path("devices")).isEqualTo(shipped);
  }

  private static Optional<String> helm() {
    String env = System.getenv("HELM");
    if (env != null && Files.isExecutable(Path.of(env))) {
      return Optional.of(env);
    }
    for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!p.isEmpty() && Files.isExecutable(Path.of(p, "helm"))) {
        return Optional.of(Path.of(p, "helm").toString());
      }
    }
    return Optional.empty();
  }

  private static List<HasMetadata> render(String... sets) throws Exception {
    Optional<String> helm = helm();
    assumeTrue(helm.isPresent(), "helm is not installed");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                helm.get(),
                "template",
                "hami",
                CHART.toString(),
                "--namespace",
                "hami-system",
                "--kube-version",
                "1.31.0"));
    for (String s : sets) {
      cmd.add("--set");
      cmd.add(s);
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    List<HasMetadata> docs = new ArrayList<>();
    for (String part : out.split("(?m)^---\\s*$")) {
      if (part.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
        continue;
      }
      docs.add(SERIALIZATION.unmarshal(part, HasMetadata.class));
    }
    return docs;
  }

  private static <T extends HasMetadata> T find(
      List<HasMetadata> docs, Class<T> type, String name) {
    return docs.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(o -> o.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(type.getSimpleName() + " " + name + " not rendered"));
  }

  private static List<HasMetadata> plain(String variant) {
    List<HasMetadata> out = new ArrayList<>();
    ShippedManifestsTest.docs("deploy/common").forEach(d -> out.add(d.object()));
    ShippedManifestsTest.docs("deploy/" + variant).forEach(d -> out.add(d.object()));
    return out;
  }

  private static Set<String> ids(List<HasMetadata> docs) {
    return docs.stream()
        .map(d -> d.getKind() + "/" + d.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  @Test
  void defaultRender_matchesThePlainManifests() throws Exception {
    List<HasMetadata> helm = render();
    List<HasMetadata> plain = plain("gpu");

    Set<String> expected = ids(plain.stream().filter(d -> !(d instanceof Namespace)).toList());
    expected.add("Secret/hami-webhook-tls");
    assertThat(ids(helm)).isEqualTo(expected);

    for (String name : List.of("hami-scheduler", "hami-node-agent")) {
      assertThat(find(helm, ClusterRole.class, name).getRules())
          .isEqualTo(find(plain, ClusterRole.class, name).getRules());
    }
    assertThat(find(helm, Role.class, "hami-scheduler").getRules())
        .isEqualTo(find(plain, Role.class, "hami-scheduler").getRules());

    var hw = find(helm, MutatingWebhookConfiguration.class, "hami-webhook").getWebhooks().get(0);
    var pw = find(plain, MutatingWebhookConfiguration.class, "hami-webhook").getWebhooks().get(0);
    assertThat(hw.getClientConfig().getCaBundle()).isNotBlank();
    hw.getClientConfig().setCaBundle(null);
    assertThat(hw).isEqualTo(pw);

    for (String name : List.of("hami-node-agent-node-updates", "hami-node-agent-pod-updates")) {
      assertThat(find(helm, ValidatingAdmissionPolicy.class, name).getSpec())
          .isEqualTo(find(plain, ValidatingAdmissionPolicy.class, name).getSpec());
    }

    PodSpec hs = find(helm, Deployment.class, "hami-scheduler").getSpec().getTemplate().getSpec();
    PodSpec ps = find(plain, Deployment.class, "hami-scheduler").getSpec().getTemplate().getSpec();
    assertThat(hs.getContainers()).isEqualTo(ps.getContainers());
    assertThat(hs.getVolumes()).isEqualTo(ps.getVolumes());

    PodSpec hd = find(helm, DaemonSet.class, "hami-node-agent").getSpec().getTemplate().getSpec();
    PodSpec pd = find(plain, DaemonSet.class, "hami-node-agent").getSpec().getTemplate().getSpec();
    assertThat(hd.getContainers()).isEqualTo(pd.getContainers());
    assertThat(hd.getInitContainers()).isEqualTo(pd.getInitContainers());
    assertThat(hd.getVolumes()).isEqualTo(pd.getVolumes());
    assertThat(hd.getNodeSelector()).isEqualTo(pd.getNodeSelector());

    JsonNode helmDevices =
        YAML.readTree(
            find(helm, ConfigMap.class, "hami-device-config").getData().get("device-config.yaml"));
    JsonNode plainDevices =
        YAML.readTree(
            find(plain, ConfigMap.class, "hami-device-config").getData().get("device-config.yaml"));
    assertThat(helmDevices).isEqualTo(plainDevices);
    assertThat(
            YAML.readTree(
                find(helm, ConfigMap.class, "hami-scheduler-config")
                    .getData()
                    .get("scheduler-config.yaml")))
        .isEqualTo(
            YAML.readTree(
                find(plain, ConfigMap.class, "hami-scheduler-config")
                    .getData()
                    .get("scheduler-config.yaml")));
  }

  @Test
  void fakeGpuRender_matchesTheFakeGpuDaemonSet() throws Exception {
    List<HasMetadata> helm =
        render("nodeAgent.fakeGpus=4xNVIDIA-A100-SXM4-80GB:81920MiB\\,numa=0-1");
    PodSpec hd = find(helm, DaemonSet.class, "hami-node-agent").getSpec().getTemplate().getSpec();
    PodSpec pd =
        find(plain("fake-gpu"), DaemonSet.class, "hami-node-agent")
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(hd.getContainers()).isEqualTo(pd.getContainers());
    assertThat(hd.getNodeSelector()).isEqualTo(pd.getNodeSelector());
  }

  @Test
  void certManagerRender_usesACertificateAndCaInjection() throws Exception {
    List<HasMetadata> helm = render("webhook.certManager.enabled=true");
    assertThat(ids(helm))
        .contains("Certificate/hami-webhook", "Issuer/hami-webhook-selfsigned")
        .doesNotContain("Secret/hami-webhook-tls");
    var config = find(helm, MutatingWebhookConfiguration.class, "hami-webhook");
    assertThat(config.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", "hami-system/hami-webhook");
  }
}
