package io.hami.webhook;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Fluent pods, containers and quotas for webhook tests. */
final class Fixtures {

  static final JsonMapper JSON = JsonMapper.builder().build();
  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private Fixtures() {}

  static Ctr ctr(String name) {
    return new Ctr(name);
  }

  static PodFixture pod(String name) {
    return new PodFixture(name);
  }

  static ObjectNode raw(Pod pod) {
    return (ObjectNode) JSON.readTree(SERIALIZATION.asJson(pod));
  }

  static JsonNode json(String text) {
    return JSON.readTree(text);
  }

  static ResourceQuota quota(String name, String... hardPairs) {
    Map<String, Quantity> hard = new LinkedHashMap<>();
    for (int i = 0; i < hardPairs.length; i += 2) {
      hard.put(hardPairs[i], new Quantity(hardPairs[i + 1]));
    }
    return new ResourceQuotaBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team")
        .endMetadata()
        .withNewSpec()
        .withHard(hard)
        .endSpec()
        .build();
  }

  static Namespace namespace(String name, String... labelPairs) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      labels.put(labelPairs[i], labelPairs[i + 1]);
    }
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  /** A container under construction. */
  static final class Ctr {
    private final ContainerBuilder b;
    private final Map<String, Quantity> limits = new LinkedHashMap<>();
    private final Map<String, Quantity> requests = new LinkedHashMap<>();

    Ctr(String name) {
      b = new ContainerBuilder().withName(name).withImage("cuda:12");
    }

    Ctr limit(String resource, String q) {
      limits.put(resource, new Quantity(q));
      return this;
    }

    Ctr request(String resource, String q) {
      requests.put(resource, new Quantity(q));
      return this;
    }

    Ctr gpus(int n) {
      return limit("nvidia.com/gpu", Integer.toString(n));
    }

    Ctr gpumem(String q) {
      return limit("nvidia.com/gpumem", q);
    }

    Ctr gpupct(String q) {
      return limit("nvidia.com/gpumem-percentage", q);
    }

    Ctr gpucores(String q) {
      return limit("nvidia.com/gpucores", q);
    }

    Ctr env(String name, String value) {
      b.addNewEnv().withName(name).withValue(value).endEnv();
      return this;
    }

    Ctr privileged() {
      b.withNewSecurityContext().withPrivileged(true).endSecurityContext();
      return this;
    }

    Container build() {
      if (!limits.isEmpty() || !requests.isEmpty()) {
        b.withNewResources()
            .withLimits(limits.isEmpty() ? null : limits)
            .withRequests(requests.isEmpty() ? null : requests)
            .endResources();
      }
      return b.build();
    }
  }

  /** A pod under construction. */
  static final class PodFixture {
    private final String name;
    private final List<Container> init = new ArrayList<>();
    private final List<Container> app = new ArrayList<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private @Nullable String schedulerName;
    private @Nullable String nodeName;
    private @Nullable String runtimeClassName;
    private @Nullable String phase;

    PodFixture(String name) {
      this.name = name;
    }

    PodFixture init(Ctr c) {
      init.add(c.build());
      return this;
    }

    PodFixture ctr(Ctr c) {
      app.add(c.build());
      return this;
    }

    PodFixture label(String k, String v) {
      labels.put(k, v);
      return this;
    }

    PodFixture annotation(String k, String v) {
      annotations.put(k, v);
      return this;
    }

    PodFixture schedulerName(String s) {
      schedulerName = s;
      return this;
    }

    PodFixture nodeName(String s) {
      nodeName = s;
      return this;
    }

    PodFixture runtimeClassName(String s) {
      runtimeClassName = s;
      return this;
    }

    PodFixture phase(String p) {
      phase = p;
      return this;
    }

    Pod build() {
      PodBuilder b =
          new PodBuilder()
              .withNewMetadata()
              .withName(name)
              .withNamespace("team")
              .withLabels(labels.isEmpty() ? null : labels)
              .withAnnotations(annotations.isEmpty() ? null : annotations)
              .endMetadata()
              .withNewSpec()
              .withInitContainers(init.isEmpty() ? null : init)
              .withContainers(app)
              .withSchedulerName(schedulerName)
              .withNodeName(nodeName)
              .withRuntimeClassName(runtimeClassName)
              .endSpec();
      if (phase != null) {
        b.withNewStatus().withPhase(phase).endStatus();
      }
      return b.build();
    }
  }

  /** An in-memory cluster for {@link ClusterLookup}. */
  static final class FakeCluster implements ClusterLookup {
    final Map<String, Map<String, String>> namespaces = new LinkedHashMap<>();
    final List<ResourceQuota> quotas = new ArrayList<>();
    final List<Pod> pods = new ArrayList<>();
    @Nullable RuntimeException namespaceFailure;
    @Nullable RuntimeException quotaFailure;
    int namespaceCalls;
    int podCalls;

    FakeCluster() {
      namespaces.put("team", Map.of());
    }

    @Override
    public Optional<Map<String, String>> namespaceLabels(String namespace) {
      namespaceCalls++;
      if (namespaceFailure != null) {
        throw namespaceFailure;
      }
      return Optional.ofNullable(namespaces.get(namespace));
    }

    @Override
    public List<ResourceQuota> quotas(String namespace) {
      if (quotaFailure != null) {
        throw quotaFailure;
      }
      return List.copyOf(quotas);
    }

    @Override
    public List<Pod> pods(String namespace) {
      podCalls++;
      return List.copyOf(pods);
    }
  }
}
