package io.hami.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.runtime.Registry;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.Validated;
import io.hami.plugins.GpuPlugins;
import io.hami.webhook.Fixtures.FakeCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Parses every manifest under {@code config/deploy} and {@code config/samples} into typed fabric8
 * objects and checks what the install depends on: names that refer to each other, RBAC, the webhook
 * registration, host paths, and that every sample pod passes the webhook.
 */
class ShippedManifestsTest {

  static final Path CONFIG = Path.of("..", "..", "config").toAbsolutePath().normalize();
  private static final String POD_GROUP_NAME = "pod-group.scheduling.hami.io/name";
  private static final String POD_GROUP_MIN_AVAILABLE =
      "pod-group.scheduling.hami.io/min-available";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** One YAML document of a shipped file. */
  record Doc(Path file, HasMetadata object) {
    @Override
    public String toString() {
      return CONFIG.relativize(file)
          + " "
          + object.getKind()
          + "/"
          + object.getMetadata().getName();
    }
  }

  static List<Path> yamlFiles(String dir) {
    try (Stream<Path> files = Files.walk(CONFIG.resolve(dir))) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Doc> docs(String dir) {
    List<Doc> out = new ArrayList<>();
    for (Path f : yamlFiles(dir)) {
      String text;
      try {
        text = Files.readString(f);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String part : text.split("(?m)^---\\s*$")) {
        if (part.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
          continue;
        }
        out.add(new Doc(f, SERIALIZATION.unmarshal(part, HasMetadata.class)));
      }
    }
    return out;
  }

  static Stream<Doc> allDocs() {
    return Stream.concat(docs("deploy").stream(), docs("samples").stream());
  }

  /**
   * A {@code scheduling.k8s.io/v1alpha2} PodGroup, which fabric8's model does not have yet: the one
   * kind a shipped file may hold that parses only as a generic resource.
   */
  private static boolean isPodGroup(HasMetadata o) {
    return o instanceof GenericKubernetesResource
        && "scheduling.k8s.io/v1alpha2".equals(o.getApiVersion())
        && "PodGroup".equals(o.getKind());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allDocs")
  void everyDocument_isATypedNamedObject(Doc d) {
    if (!isPodGroup(d.object())) {
      assertThat(d.object()).isNotInstanceOf(GenericKubernetesResource.class);
    }
    assertThat(d.object().getMetadata().getName()).isNotBlank();
    if (d.file().startsWith(CONFIG.resolve("deploy")) && d.object() instanceof Namespaced) {
      assertThat(d.object().getMetadata().getNamespace()).isEqualTo("hami-system");
    }
  }

  private static <T extends HasMetadata> List<T> all(List<Doc> docs, Class<T> type) {
    return docs.stream().map(Doc::object).filter(type::isInstance).map(type::cast).toList();
  }

  private static <T extends HasMetadata> T one(List<Doc> docs, Class<T> type, String name) {
    List<T> found =
        all(docs, type).stream().filter(o -> o.getMetadata().getName().equals(name)).toList();
    assertThat(found).as("%s %s", type.getSimpleName(), name).hasSize(1);
    return found.get(0);
  }

  private static List<Doc> deploy(String variant) {
    List<Doc> d = new ArrayList<>(docs("deploy/common"));
    d.addAll(docs("deploy/" + variant));
    return d;
  }

  private static Set<String> rules(List<PolicyRule> rules) {
    Set<String> out = new TreeSet<>();
    for (PolicyRule r : rules) {
      for (String g : r.getApiGroups()) {
        for (String res : r.getResources()) {
          for (String v : r.getVerbs()) {
            String names =
                r.getResourceNames() == null || r.getResourceNames().isEmpty()
                    ? ""
                    : r.getResourceNames().toString();
            out.add((g.isEmpty() ? "core" : g) + "/" + res + names + ":" + v);
          }
        }
      }
    }
    return out;
  }

  @Test
  void schedulerRbac_isExactlyWhatItNeeds() {
    List<Doc> d = deploy("gpu");
    assertThat(rules(one(d, ClusterRole.class, "hami-scheduler").getRules()))
        .containsExactlyInAnyOrder(
            "core/pods:get",
            "core/pods:list",
            "core/pods:watch",
            "core/pods:patch",
            // DefaultPreemption deletes its victims
            "core/pods:delete",
            // the binder posts to namespaces/{ns}/bindings; pods/{name}/binding is its equal
            "core/bindings:create",
            "core/pods/binding:create",
            "core/pods/status:patch",
            "core/nodes:get",
            "core/nodes:list",
            "core/nodes:watch",
            "core/nodes:patch",
            "core/events:create",
            "core/events:patch",
            "core/events:update",
            "events.k8s.io/events:create",
            "events.k8s.io/events:patch",
            "events.k8s.io/events:update",
            // the volume plugins' informers; VolumeBinding's PV and PVC writes
            "core/persistentvolumeclaims:get",
            "core/persistentvolumeclaims:list",
            "core/persistentvolumeclaims:watch",
            "core/persistentvolumeclaims:update",
            "core/persistentvolumeclaims:patch",
            "core/persistentvolumes:get",
            "core/persistentvolumes:list",
            "core/persistentvolumes:watch",
            "core/persistentvolumes:update",
            "core/persistentvolumes:patch",
            "storage.k8s.io/storageclasses:get",
            "storage.k8s.io/storageclasses:list",
            "storage.k8s.io/storageclasses:watch",
            "storage.k8s.io/csinodes:get",
            "storage.k8s.io/csinodes:list",
            "storage.k8s.io/csinodes:watch",
            "storage.k8s.io/csidrivers:get",
            "storage.k8s.io/csidrivers:list",
            "storage.k8s.io/csidrivers:watch",
            "storage.k8s.io/csistoragecapacities:get",
            "storage.k8s.io/csistoragecapacities:list",
            "storage.k8s.io/csistoragecapacities:watch",
            // the vgpu plugin's quota informer; the webhook: namespace labels and GPU quotas;
            // InterPodAffinity's namespace informer
            "core/namespaces:get",
            "core/namespaces:list",
            "core/namespaces:watch",
            "core/resourcequotas:list",
            "core/resourcequotas:watch",
            // PodTopologySpread: the Services and controllers selecting a pod
            "core/services:list",
            "core/services:watch",
            "core/replicationcontrollers:list",
            "core/replicationcontrollers:watch",
            "apps/replicasets:list",
            "apps/replicasets:watch",
            "apps/statefulsets:list",
            "apps/statefulsets:watch",
            // DefaultPreemption's PodDisruptionBudgets; GangScheduling's PodGroups
            "policy/poddisruptionbudgets:list",
            "policy/poddisruptionbudgets:watch",
            "scheduling.k8s.io/podgroups:get",
            "scheduling.k8s.io/podgroups:list",
            "scheduling.k8s.io/podgroups:watch");
    assertThat(rules(one(d, Role.class, "hami-scheduler").getRules()))
        .containsExactlyInAnyOrder(
            "coordination.k8s.io/leases:create",
            "coordination.k8s.io/leases[hami-scheduler]:get",
            "coordination.k8s.io/leases[hami-scheduler]:update",
            "coordination.k8s.io/leases[hami-scheduler]:patch",
            "core/configmaps:get");
  }

  @Test
  void nodeAgentRbac_isExactlyWhatItNeeds_andThePolicyNarrowsIt() {
    List<Doc> d = deploy("gpu");
    assertThat(rules(one(d, ClusterRole.class, "hami-node-agent").getRules()))
        .containsExactlyInAnyOrder(
            "core/nodes:get",
            "core/nodes:patch",
            "core/pods:get",
            "core/pods:list",
            "core/pods:watch",
            "core/pods:patch");
    ValidatingAdmissionPolicy policy =
        one(d, ValidatingAdmissionPolicy.class, "hami-node-agent-node-updates");
    assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
    assertThat(policy.getSpec().getMatchConditions().get(0).getExpression())
        .contains("system:serviceaccount:hami-system:hami-node-agent");
    assertThat(policy.getSpec().getValidations()).hasSize(3);
    assertThat(policy.getSpec().getValidations().get(1).getExpression()).contains("\"hami.io/\"");
    ValidatingAdmissionPolicyBinding binding =
        one(d, ValidatingAdmissionPolicyBinding.class, "hami-node-agent-node-updates");
    assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
    assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");

    ValidatingAdmissionPolicy pods =
        one(d, ValidatingAdmissionPolicy.class, "hami-node-agent-pod-updates");
    assertThat(pods.getSpec().getFailurePolicy()).isEqualTo("Fail");
    assertThat(pods.getSpec().getMatchConstraints().getResourceRules().get(0).getResources())
        .containsExactly("pods");
    assertThat(pods.getSpec().getMatchConditions().get(0).getExpression())
        .contains("system:serviceaccount:hami-system:hami-node-agent");
    assertThat(pods.getSpec().getValidations()).hasSize(3);
    assertThat(pods.getSpec().getValidations().get(0).getExpression())
        .contains("oldObject.spec.nodeName");
    assertThat(pods.getSpec().getValidations().get(1).getExpression()).contains("\"hami.io/\"");
    ValidatingAdmissionPolicyBinding podsBinding =
        one(d, ValidatingAdmissionPolicyBinding.class, "hami-node-agent-pod-updates");
    assertThat(podsBinding.getSpec().getPolicyName()).isEqualTo(pods.getMetadata().getName());
    assertThat(podsBinding.getSpec().getValidationActions()).containsExactly("Deny");
  }

  @Test
  void webhookRegistration_pointsAtTheSchedulerService() {
    List<Doc> d = deploy("gpu");
    MutatingWebhookConfiguration config =
        one(d, MutatingWebhookConfiguration.class, "hami-webhook");
    assertThat(config.getWebhooks()).hasSize(1);
    MutatingWebhook w = config.getWebhooks().get(0);
    assertThat(w.getName()).isEqualTo("vgpu.hami.io");
    assertThat(w.getFailurePolicy()).isEqualTo("Ignore");
    assertThat(w.getTimeoutSeconds()).isEqualTo(10);
    assertThat(w.getReinvocationPolicy()).isEqualTo("Never");
    assertThat(w.getSideEffects()).isEqualTo("None");
    assertThat(w.getAdmissionReviewVersions()).contains("v1");
    assertThat(w.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getOperations()).containsExactly("CREATE");
              assertThat(r.getResources()).containsExactly("pods");
            });
    for (var selector : List.of(w.getNamespaceSelector(), w.getObjectSelector())) {
      assertThat(selector.getMatchExpressions())
          .anySatisfy(
              e -> {
                assertThat(e.getKey()).isEqualTo("hami.io/webhook");
                assertThat(e.getOperator()).isEqualTo("NotIn");
                assertThat(e.getValues()).containsExactly("ignore");
              });
    }
    var ref = w.getClientConfig().getService();
    assertThat(ref.getPath()).isEqualTo("/webhook");
    Service svc = one(d, Service.class, ref.getName());
    assertThat(svc.getMetadata().getNamespace()).isEqualTo(ref.getNamespace());
    var port =
        svc.getSpec().getPorts().stream()
            .filter(p -> p.getPort().equals(ref.getPort()))
            .findFirst()
            .orElseThrow();
    Deployment scheduler = one(d, Deployment.class, "hami-scheduler");
    Container c = scheduler.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo(port.getTargetPort().getStrVal());
              assertThat(c.getArgs()).contains("--webhook-bind-address=:" + p.getContainerPort());
            });
    assertThat(svc.getSpec().getSelector())
        .isEqualTo(scheduler.getSpec().getSelector().getMatchLabels());
  }

  @Test
  void schedulerDeployment_isHighlyAvailable() {
    List<Doc> d = deploy("gpu");
    Deployment dep = one(d, Deployment.class, "hami-scheduler");
    assertThat(dep.getSpec().getReplicas()).isEqualTo(2);
    PodTemplateSpec t = dep.getSpec().getTemplate();
    Container c = t.getSpec().getContainers().get(0);
    assertThat(c.getArgs()).contains("scheduler", "--leader-elect");
    assertThat(c.getLivenessProbe()).isNotNull();
    assertThat(c.getReadinessProbe()).isNotNull();
    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKey("memory");
    assertThat(t.getMetadata().getLabels()).containsEntry("hami.io/webhook", "ignore");
    one(d, ServiceAccount.class, t.getSpec().getServiceAccountName());
    assertVolumesExist(d, t);
  }

  static Stream<String> variants() {
    return Stream.of("gpu", "fake-gpu");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void nodeAgentDaemonSet_mountsTheHostPaths(String variant) {
    List<Doc> d = deploy(variant);
    DaemonSet ds = one(d, DaemonSet.class, "hami-node-agent");
    PodTemplateSpec t = ds.getSpec().getTemplate();
    one(d, ServiceAccount.class, t.getSpec().getServiceAccountName());
    Map<String, String> hostPaths =
        t.getSpec().getVolumes().stream()
            .filter(v -> v.getHostPath() != null)
            .collect(Collectors.toMap(Volume::getName, v -> v.getHostPath().getPath()));
    assertThat(hostPaths)
        .containsValues("/var/lib/kubelet/device-plugins", "/usr/local/vgpu", "/tmp/vgpulock");
    Container agent = t.getSpec().getContainers().get(0);
    assertThat(agent.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains("/var/lib/kubelet/device-plugins", "/usr/local/vgpu", "/tmp/vgpulock");
    assertThat(agent.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("NODE_NAME");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
            });
    boolean fake = agent.getArgs().stream().anyMatch(a -> a.startsWith("--fake-gpus="));
    assertThat(fake).isEqualTo(variant.equals("fake-gpu"));
    assertThat(t.getMetadata().getLabels()).containsEntry("hami.io/webhook", "ignore");
    assertVolumesExist(d, t);
  }

  private static void assertVolumesExist(List<Doc> d, PodTemplateSpec t) {
    for (Volume v : t.getSpec().getVolumes()) {
      if (v.getConfigMap() != null) {
        one(d, ConfigMap.class, v.getConfigMap().getName());
      }
    }
    Set<String> volumes =
        t.getSpec().getVolumes().stream().map(Volume::getName).collect(Collectors.toSet());
    List<Container> containers = new ArrayList<>(t.getSpec().getContainers());
    if (t.getSpec().getInitContainers() != null) {
      containers.addAll(t.getSpec().getInitContainers());
    }
    for (Container c : containers) {
      c.getVolumeMounts().forEach(m -> assertThat(volumes).contains(m.getName()));
    }
  }

  @Test
  void deviceConfigMap_equalsTheShippedDeviceConfig_whichIsValid() throws IOException {
    ConfigMap cm = one(deploy("gpu"), ConfigMap.class, "hami-device-config");
    String shipped = Files.readString(CONFIG.resolve("device-config.yaml"));
    assertThat(cm.getData().get("device-config.yaml")).isEqualTo(shipped);
    Validated<DeviceConfig> parsed = DeviceConfigFile.parse(shipped);
    assertThat(parsed).isInstanceOf(Validated.Valid.class);
    assertThat(((Validated.Valid<DeviceConfig>) parsed).warnings()).isEmpty();
    assertThat(((Validated.Valid<DeviceConfig>) parsed).value()).isEqualTo(DeviceConfig.DEFAULTS);
  }

  @Test
  void schedulerConfigMap_isTheShippedProfileWithTheLeaseHere_andLoads() throws IOException {
    ConfigMap cm = one(deploy("gpu"), ConfigMap.class, "hami-scheduler-config");
    String text = cm.getData().get("scheduler-config.yaml");
    YAMLMapper yaml = YAMLMapper.builder().build();
    ObjectNode inMap = (ObjectNode) yaml.readTree(text);
    ObjectNode shipped =
        (ObjectNode)
            yaml.readTree(Files.readString(CONFIG.resolve("scheduler/scheduler-config.yaml")));
    ObjectNode lease = (ObjectNode) inMap.remove("leaderElection");
    ObjectNode shippedLease = (ObjectNode) shipped.remove("leaderElection");
    assertThat(inMap).isEqualTo(shipped);
    assertThat(lease.remove("leaseNamespace").asString()).isEqualTo("hami-system");
    assertThat(lease.path("leaseName").asString()).isEqualTo("hami-scheduler");
    if (shippedLease != null) {
      shippedLease.remove("leaseNamespace");
      assertThat(lease).isEqualTo(shippedLease);
    }

    Registry registry = BuiltInPlugins.registry();
    GpuPlugins.registrations().forEach(registry::register);
    SchedulerConfiguration loaded = new ConfigLoader(registry).parse(text, "configmap");
    assertThat(loaded.leaderElection().leaseNamespace()).isEqualTo("hami-system");
  }

  @Test
  void kustomizations_listOnlyFilesThatExist() throws IOException {
    for (String dir : List.of("deploy/common", "deploy/gpu", "deploy/fake-gpu")) {
      Path k = CONFIG.resolve(dir).resolve("kustomization.yaml");
      boolean inResources = false;
      for (String line : Files.readAllLines(k)) {
        if (line.startsWith("resources:")) {
          inResources = true;
        } else if (inResources && line.trim().startsWith("- ")) {
          Path target = k.getParent().resolve(line.trim().substring(2).trim()).normalize();
          assertThat(Files.exists(target)).as("%s lists %s", k, target).isTrue();
        } else if (!line.isBlank() && !line.startsWith(" ") && !line.startsWith("#")) {
          inResources = false;
        }
      }
    }
    // Everything in common is listed.
    String common = Files.readString(CONFIG.resolve("deploy/common/kustomization.yaml"));
    for (Path f : yamlFiles("deploy/common")) {
      assertThat(common).contains("- " + f.getFileName());
    }
  }

  static Stream<Doc> samplePods() {
    List<Doc> out = new ArrayList<>();
    for (Doc d : docs("samples")) {
      if (d.object() instanceof Pod) {
        out.add(d);
      } else if (d.object() instanceof Deployment dep) {
        Pod pod =
            new PodBuilder()
                .withMetadata(dep.getSpec().getTemplate().getMetadata())
                .editMetadata()
                .withName(dep.getMetadata().getName() + "-pod")
                .endMetadata()
                .withSpec(dep.getSpec().getTemplate().getSpec())
                .build();
        out.add(new Doc(d.file(), pod));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samplePods")
  void samplePods_passTheWebhook(Doc d) {
    Pod pod = (Pod) d.object();
    PodAdmission admission = new PodAdmission(WebhookConfig.defaults(), new FakeCluster());

    AdmissionDecision decision = admission.admit("team", Fixtures.raw(pod));

    assertThat(decision).isInstanceOf(AdmissionDecision.Allowed.class);
    var patch = ((AdmissionDecision.Allowed) decision).patch();
    boolean ignored =
        "ignore"
            .equals(
                pod.getMetadata().getLabels() == null
                    ? null
                    : pod.getMetadata().getLabels().get(PodAdmission.IGNORE_LABEL));
    if (ignored) {
      assertThat(patch).isEmpty();
    } else {
      assertThat(patch.toString()).contains("\"path\":\"/spec/schedulerName\"");
    }
  }

  @Test
  void samplePriorityClassesAndPodGroups_existForThePodsThatNameThem() {
    List<Doc> samples = docs("samples");
    Set<String> classes =
        all(samples, PriorityClass.class).stream()
            .map(c -> c.getMetadata().getName())
            .collect(Collectors.toSet());
    Map<String, Integer> gangs =
        samples.stream()
            .map(Doc::object)
            .filter(ShippedManifestsTest::isPodGroup)
            .collect(
                Collectors.toMap(
                    g -> g.getMetadata().getName(), g -> minCount((GenericKubernetesResource) g)));
    assertThat(classes).as("sample PriorityClasses").isNotEmpty();
    assertThat(gangs)
        .as("sample PodGroups")
        .isNotEmpty()
        .allSatisfy((n, min) -> assertThat(min).isPositive());

    Map<String, Integer> members = new TreeMap<>();
    Map<String, Integer> annotated = new TreeMap<>();
    for (Doc d : samplePods().toList()) {
      Pod pod = (Pod) d.object();
      String priorityClass = pod.getSpec().getPriorityClassName();
      if (priorityClass != null) {
        assertThat(classes).as("PriorityClass of %s", d).contains(priorityClass);
      }
      if (pod.getSpec().getSchedulingGroup() != null) {
        String group = pod.getSpec().getSchedulingGroup().getPodGroupName();
        assertThat(gangs).as("PodGroup of %s", d).containsKey(group);
        members.merge(group, 1, Integer::sum);
      }
      Map<String, String> a = pod.getMetadata().getAnnotations();
      if (a != null && a.containsKey(POD_GROUP_NAME)) {
        assertThat(a.get(POD_GROUP_MIN_AVAILABLE))
            .as("min-available of %s", d)
            .matches("[1-9][0-9]*");
        annotated.merge(
            a.get(POD_GROUP_NAME), Integer.parseInt(a.get(POD_GROUP_MIN_AVAILABLE)), Math::max);
        members.merge("annotations/" + a.get(POD_GROUP_NAME), 1, Integer::sum);
      }
    }
    // Each sample gang has enough members to start.
    gangs.forEach(
        (g, min) ->
            assertThat(members.getOrDefault(g, 0))
                .as("members of %s", g)
                .isGreaterThanOrEqualTo(min));
    assertThat(annotated).as("gangs by annotation").isNotEmpty();
    annotated.forEach(
        (g, min) ->
            assertThat(members.get("annotations/" + g))
                .as("members of %s", g)
                .isGreaterThanOrEqualTo(min));
  }

  private static int minCount(GenericKubernetesResource podGroup) {
    Object spec = podGroup.getAdditionalProperties().get("spec");
    Object policy = spec instanceof Map<?, ?> m ? m.get("schedulingPolicy") : null;
    Object gang = policy instanceof Map<?, ?> m ? m.get("gang") : null;
    Object min = gang instanceof Map<?, ?> m ? m.get("minCount") : null;
    return min instanceof Number n ? n.intValue() : 0;
  }
}
