package io.hami.webhook;

import static io.hami.webhook.Fixtures.ctr;
import static io.hami.webhook.Fixtures.json;
import static io.hami.webhook.Fixtures.pod;
import static io.hami.webhook.Fixtures.raw;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.zjsonpatch.JsonPatch;
import io.hami.model.config.AscendConfig;
import io.hami.model.config.CambriconConfig;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.GpuCorePolicy;
import io.hami.model.config.HygonConfig;
import io.hami.model.config.IluvatarConfig;
import io.hami.model.config.NvidiaConfig;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.webhook.Fixtures.FakeCluster;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class PodAdmissionTest {

  private static final WebhookConfig DEFAULTS = WebhookConfig.defaults();
  private static final String SCHED =
      "{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"hami-scheduler\"}";

  private static String cores(String ctrPath) {
    return "{\"op\":\"add\",\"path\":\""
        + ctrPath
        + "/resources/limits/nvidia.com~1gpucores\",\"value\":\"100\"}";
  }

  private static String ops(String... ops) {
    return "[" + String.join(",", ops) + "]";
  }

  /** A pod and config, and the exact patch expected (empty array: admitted unchanged). */
  record Mutation(String name, WebhookConfig config, Pod pod, String patch) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Mutation> mutations() {
    return Stream.of(
        new Mutation(
            "whole card: gpu 1 gets cores 100 and the scheduler",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1)).build(),
            ops(cores("/spec/containers/0"), SCHED)),
        new Mutation(
            "gpumem given: not exclusive",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(2).gpumem("4096")).build(),
            ops(SCHED)),
        new Mutation(
            "memory 4k is 4000 MiB (how the API server writes 4000)",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("4k")).build(),
            ops(SCHED)),
        new Mutation(
            "percentage 100 is a whole card",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpupct("100")).build(),
            ops(cores("/spec/containers/0"), SCHED)),
        new Mutation(
            "percentage 50: not exclusive",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpupct("50")).build(),
            ops(SCHED)),
        new Mutation(
            "explicit cores kept",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpucores("70")).build(),
            ops(SCHED)),
        new Mutation(
            "gpumem without a count gets defaultGPUNum",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpumem("4096")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpu\","
                    + "\"value\":\"1\"}",
                SCHED)),
        new Mutation(
            "percentage 100 without a count: count then exclusive cores",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpupct("100")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpu\","
                    + "\"value\":\"1\"}",
                cores("/spec/containers/0"),
                SCHED)),
        new Mutation(
            "cores without a count and defaultGPUNum 0: no GPU, untouched",
            DEFAULTS.withDefaultGpuNum(0),
            pod("p").ctr(ctr("c").gpucores("30")).build(),
            "[]"),
        new Mutation(
            "defaultGPUNum 2",
            DEFAULTS.withDefaultGpuNum(2),
            pod("p").ctr(ctr("c").gpucores("30")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpu\","
                    + "\"value\":\"2\"}",
                SCHED)),
        new Mutation(
            "requests only are read too",
            DEFAULTS,
            pod("p")
                .ctr(ctr("c").request("nvidia.com/gpu", "1").request("nvidia.com/gpumem", "1000"))
                .build(),
            ops(SCHED)),
        new Mutation(
            "requests only, whole card: limits created for cores",
            DEFAULTS,
            pod("p").ctr(ctr("c").request("nvidia.com/gpu", "1")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits\","
                    + "\"value\":{\"nvidia.com/gpucores\":\"100\"}}",
                SCHED)),
        new Mutation(
            "no GPU: untouched", DEFAULTS, pod("p").ctr(ctr("c").limit("cpu", "1")).build(), "[]"),
        new Mutation(
            "scheduler name already ours: only cores",
            DEFAULTS,
            pod("p").schedulerName("hami-scheduler").ctr(ctr("c").gpus(1)).build(),
            ops(cores("/spec/containers/0"))),
        new Mutation(
            "default-scheduler is taken over",
            DEFAULTS,
            pod("p").schedulerName("default-scheduler").ctr(ctr("c").gpus(1).gpumem("10")).build(),
            ops(SCHED)),
        new Mutation(
            "default-scheduler kept when not forced",
            DEFAULTS.withSchedulerName("hami-scheduler", false),
            pod("p").schedulerName("default-scheduler").ctr(ctr("c").gpus(1)).build(),
            "[]"),
        new Mutation(
            "another scheduler: skipped",
            DEFAULTS,
            pod("p").schedulerName("volcano").ctr(ctr("c").gpus(1)).build(),
            "[]"),
        new Mutation(
            "no scheduler name configured: defaults only",
            DEFAULTS.withSchedulerName("", true),
            pod("p").ctr(ctr("c").gpus(1)).build(),
            ops(cores("/spec/containers/0"))),
        new Mutation(
            "no scheduler name configured, pod names one: skipped",
            DEFAULTS.withSchedulerName("", true),
            pod("p").schedulerName("hami-scheduler").ctr(ctr("c").gpus(1)).build(),
            "[]"),
        new Mutation(
            "pod label hami.io/webhook=ignore",
            DEFAULTS,
            pod("p").label("hami.io/webhook", "ignore").ctr(ctr("c").gpus(1)).build(),
            "[]"),
        new Mutation(
            "priority becomes CUDA_TASK_PRIORITY",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("100").limit("nvidia.com/priority", "1")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/env\",\"value\":"
                    + "[{\"name\":\"CUDA_TASK_PRIORITY\",\"value\":\"1\"}]}",
                SCHED)),
        new Mutation(
            "core policy force on GPU containers only",
            DEFAULTS.withGpuCorePolicy(GpuCorePolicy.FORCE),
            pod("p").ctr(ctr("gpu").gpus(1).gpumem("100").env("A", "b")).ctr(ctr("side")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/env/-\",\"value\":"
                    + "{\"name\":\"GPU_CORE_UTILIZATION_POLICY\",\"value\":\"force\"}}",
                SCHED)),
        new Mutation(
            "core policy disable",
            DEFAULTS.withGpuCorePolicy(GpuCorePolicy.DISABLE),
            pod("p").ctr(ctr("gpu").gpus(1).gpumem("100")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/env\",\"value\":"
                    + "[{\"name\":\"GPU_CORE_UTILIZATION_POLICY\",\"value\":\"disable\"}]}",
                SCHED)),
        new Mutation(
            "overwriteEnv hides GPUs from the sidecar",
            DEFAULTS.withOverwriteEnv(true),
            pod("p").ctr(ctr("gpu").gpus(1).gpumem("100")).ctr(ctr("side")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/1/env\",\"value\":"
                    + "[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"none\"}]}",
                SCHED)),
        new Mutation(
            "overwriteEnv replaces a user's NVIDIA_VISIBLE_DEVICES=all",
            DEFAULTS.withOverwriteEnv(true),
            pod("p").ctr(ctr("c").env("X", "1").env("NVIDIA_VISIBLE_DEVICES", "all")).build(),
            ops(
                "{\"op\":\"replace\",\"path\":\"/spec/containers/0/env/1\",\"value\":"
                    + "{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"none\"}}")),
        new Mutation(
            "overwriteEnv: already none, nothing to do",
            DEFAULTS.withOverwriteEnv(true),
            pod("p").ctr(ctr("c").env("NVIDIA_VISIBLE_DEVICES", "none")).build(),
            "[]"),
        new Mutation(
            "runtimeClassName set for GPU pods",
            DEFAULTS.withRuntimeClassName("nvidia"),
            pod("p").ctr(ctr("c").gpus(1).gpumem("100")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/runtimeClassName\",\"value\":\"nvidia\"}",
                SCHED)),
        new Mutation(
            "runtimeClassName of the pod kept",
            DEFAULTS.withRuntimeClassName("nvidia"),
            pod("p").runtimeClassName("kata").ctr(ctr("c").gpus(1).gpumem("100")).build(),
            ops(SCHED)),
        new Mutation(
            "runtimeClassName not set for pods without GPUs",
            DEFAULTS.withRuntimeClassName("nvidia"),
            pod("p").ctr(ctr("c")).build(),
            "[]"),
        new Mutation(
            "a Hygon DCU pod goes to the scheduler",
            DEFAULTS,
            pod("p").ctr(ctr("c").limit("hygon.com/dcunum", "1")).build(),
            ops(SCHED)),
        new Mutation(
            "a Cambricon MLU pod goes to the scheduler, without the NVIDIA runtime class",
            DEFAULTS.withRuntimeClassName("nvidia"),
            pod("p").ctr(ctr("c").limit("cambricon.com/vmlu", "1")).build(),
            ops(SCHED)),
        new Mutation(
            "an Iluvatar chip of the device config goes to the scheduler",
            WebhookConfig.from(
                new DeviceConfig(
                    NvidiaConfig.DEFAULTS,
                    CambriconConfig.DEFAULTS,
                    HygonConfig.DEFAULTS,
                    List.of(
                        new IluvatarConfig(
                            "Iluvatar BI-V150", "BI-V150", ResourceNames.iluvatar("BI-V150"))),
                    AscendConfig.DEFAULTS),
                "hami-scheduler",
                true),
            pod("p").ctr(ctr("c").limit("iluvatar.ai/BI-V150-vgpu", "1")).build(),
            ops(SCHED)),
        new Mutation(
            "another vendor's memory alone is not a request",
            DEFAULTS,
            pod("p").ctr(ctr("c").limit("hygon.com/dcumem", "1024")).build(),
            "[]"),
        new Mutation(
            "init container with a GPU",
            DEFAULTS,
            pod("p").init(ctr("warm").gpus(1)).ctr(ctr("c")).build(),
            ops(cores("/spec/initContainers/0"), SCHED)),
        new Mutation(
            "several containers",
            DEFAULTS,
            pod("p")
                .init(ctr("i").gpus(1).gpumem("10"))
                .ctr(ctr("a").gpus(1))
                .ctr(ctr("b").gpus(2))
                .build(),
            ops(cores("/spec/containers/0"), cores("/spec/containers/1"), SCHED)),
        new Mutation(
            "custom resource names",
            DEFAULTS.withRule(
                new RequestRule(
                    new ResourceNames(
                        "example.com/vgpu",
                        "example.com/vmem",
                        "example.com/vmem-pct",
                        "example.com/vcore",
                        "example.com/prio"),
                    "NVIDIA",
                    1,
                    0,
                    0)),
            pod("p").ctr(ctr("c").limit("example.com/vgpu", "1")).build(),
            ops(
                "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/example.com~1vcore\","
                    + "\"value\":\"100\"}",
                SCHED)),
        new Mutation(
            "no memory resource configured: any count is a whole card",
            DEFAULTS.withRule(
                new RequestRule(
                    new ResourceNames("nvidia.com/gpu", "", "", "nvidia.com/gpucores", ""),
                    "NVIDIA",
                    1,
                    0,
                    0)),
            pod("p").ctr(ctr("c").gpus(1).gpumem("1000")).build(),
            ops(cores("/spec/containers/0"), SCHED)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mutations")
  void admit_patchesExactly(Mutation m) {
    PodAdmission admission = new PodAdmission(m.config(), new FakeCluster());
    ObjectNode original = raw(m.pod());

    AdmissionDecision d = admission.admit("team", original);

    assertThat(d).isInstanceOf(AdmissionDecision.Allowed.class);
    AdmissionDecision.Allowed allowed = (AdmissionDecision.Allowed) d;
    assertThat(allowed.patch()).isEqualTo(json(m.patch()));
    // The patch applies cleanly to what the API server sent.
    JsonNode applied = JsonPatch.apply(allowed.patch(), original);
    assertThat(applied.path("metadata")).isEqualTo(original.path("metadata"));
  }

  /** A pod that must be refused, with the code and every fragment the message must contain. */
  record Denial(String name, WebhookConfig config, Pod pod, int code, List<String> message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Denial> denials() {
    return Stream.of(
        new Denial(
            "no containers", DEFAULTS, pod("p").build(), 400, List.of("pod has no containers")),
        new Denial(
            "percentage above 100",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpupct("150")).build(),
            400,
            List.of("container c", "nvidia.com/gpumem-percentage=150", "between 0 and 100")),
        new Denial(
            "negative percentage",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpupct("-1")).build(),
            400,
            List.of("container c", "nvidia.com/gpumem-percentage=-1", "negative")),
        new Denial(
            "cores above 100",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpucores("101")).build(),
            400,
            List.of("container c", "nvidia.com/gpucores=101", "between 0 and 100")),
        new Denial(
            "fractional cores",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpucores("500m")).build(),
            400,
            List.of("container c", "nvidia.com/gpucores=500m", "whole percentage")),
        new Denial(
            "memory in bytes: 16Gi",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("16Gi")).build(),
            400,
            List.of(
                "container c",
                "nvidia.com/gpumem=16Gi",
                "not a whole number of MiB",
                "16Gi is 16384")),
        new Denial(
            "memory in bytes: 1500Ki",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("1500Ki")).build(),
            400,
            List.of("nvidia.com/gpumem=1500Ki", "not a whole number of MiB")),
        new Denial(
            "fractional memory",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("1500m")).build(),
            400,
            List.of("nvidia.com/gpumem=1500m", "not a whole number of MiB")),
        new Denial(
            "negative memory",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("-5")).build(),
            400,
            List.of("container c", "nvidia.com/gpumem=-5", "negative")),
        new Denial(
            "memory beyond int32",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("3000000000")).build(),
            400,
            List.of("nvidia.com/gpumem=3000000000", "too large")),
        new Denial(
            "memory in decimal gigabytes: 3G",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("3G")).build(),
            400,
            List.of("nvidia.com/gpumem=3G", "too large")),
        new Denial(
            "memory times memoryFactor beyond int32",
            DEFAULTS.withRule(new RequestRule(ResourceNames.NVIDIA, "NVIDIA", 4, 0, 0)),
            pod("p").ctr(ctr("c").gpus(1).gpumem("1000000000")).build(),
            400,
            List.of("nvidia.com/gpumem=1000000000", "memoryFactor 4")),
        new Denial(
            "fractional count",
            DEFAULTS,
            pod("p").ctr(ctr("c").limit("nvidia.com/gpu", "500m")).build(),
            400,
            List.of("container c", "nvidia.com/gpu=500m", "whole number of GPUs")),
        new Denial(
            "negative count",
            DEFAULTS,
            pod("p").ctr(ctr("c").limit("nvidia.com/gpu", "-1")).build(),
            400,
            List.of("container c", "nvidia.com/gpu=-1", "negative")),
        new Denial(
            "memory on zero GPUs",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(0).gpumem("1000")).build(),
            400,
            List.of(
                "container c: nvidia.com/gpumem=1000 asks for a GPU share",
                "nvidia.com/gpu=0 gives it no GPU",
                "set nvidia.com/gpu to 1 or more")),
        new Denial(
            "cores on zero GPUs",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(0).gpucores("30")).build(),
            400,
            List.of("nvidia.com/gpucores=30 asks for a GPU share", "nvidia.com/gpu=0")),
        new Denial(
            "priority 2",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).limit("nvidia.com/priority", "2")).build(),
            400,
            List.of("container c", "nvidia.com/priority=2", "0 (high) or 1 (low)")),
        new Denial(
            "bad value in an init container",
            DEFAULTS,
            pod("p").init(ctr("setup").gpus(1).gpupct("200")).ctr(ctr("c")).build(),
            400,
            List.of("container setup", "nvidia.com/gpumem-percentage=200")),
        new Denial(
            "every bad value is reported",
            DEFAULTS,
            pod("p")
                .ctr(ctr("a").gpus(1).gpumem("8Gi"))
                .ctr(ctr("b").gpus(1).gpucores("120"))
                .build(),
            400,
            List.of(
                "container a: nvidia.com/gpumem=8Gi", "; container b: nvidia.com/gpucores=120")),
        new Denial(
            "privileged GPU container",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(1).gpumem("1000").privileged()).build(),
            403,
            List.of("container c is privileged", "nvidia.com/gpu=1", "nvidia.com/gpumem=1000")),
        new Denial(
            "privileged sidecar in a GPU pod",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpus(2)).ctr(ctr("side").privileged()).build(),
            403,
            List.of("container side is privileged", "container c: nvidia.com/gpu=2")),
        new Denial(
            "privileged container given a default GPU",
            DEFAULTS,
            pod("p").ctr(ctr("c").gpumem("1000").privileged()).build(),
            403,
            List.of("container c is privileged", "nvidia.com/gpu=1", "nvidia.com/gpumem=1000")),
        new Denial(
            "node already assigned",
            DEFAULTS,
            pod("p").nodeName("node-7").ctr(ctr("c").gpus(1)).build(),
            403,
            List.of(
                "pod has node assigned",
                "spec.nodeName=node-7",
                "container c",
                "nvidia.com/gpu=1",
                "hami-scheduler")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("denials")
  void admit_refuses(Denial d) {
    PodAdmission admission = new PodAdmission(d.config(), new FakeCluster());

    AdmissionDecision decision = admission.admit("team", raw(d.pod()));

    assertThat(decision).isInstanceOf(AdmissionDecision.Denied.class);
    AdmissionDecision.Denied denied = (AdmissionDecision.Denied) decision;
    assertThat(denied.code()).isEqualTo(d.code());
    assertThat(denied.message()).contains(d.message());
  }

  @Test
  void privilegedContainerInPodWithoutGpus_isAdmitted() {
    PodAdmission admission = new PodAdmission(DEFAULTS, new FakeCluster());
    AdmissionDecision d = admission.admit("team", raw(pod("p").ctr(ctr("c").privileged()).build()));
    assertThat(d).isEqualTo(PodAdmission.UNCHANGED);
  }

  @Test
  void nodeNameWithoutSchedulerNameConfigured_isAdmitted() {
    PodAdmission admission =
        new PodAdmission(DEFAULTS.withSchedulerName("", true), new FakeCluster());
    AdmissionDecision d =
        admission.admit(
            "team", raw(pod("p").nodeName("n").ctr(ctr("c").gpus(1).gpumem("5")).build()));
    assertThat(d).isEqualTo(PodAdmission.UNCHANGED);
  }

  @Test
  void namespaceLabelledIgnore_leavesPodAlone_evenIfItWouldBeDenied() {
    FakeCluster cluster = new FakeCluster();
    cluster.namespaces.put("team", Map.of("hami.io/webhook", "ignore"));
    PodAdmission admission = new PodAdmission(DEFAULTS, cluster);

    assertThat(admission.admit("team", raw(pod("p").ctr(ctr("c").gpus(1)).build())))
        .isEqualTo(PodAdmission.UNCHANGED);
    assertThat(admission.admit("team", raw(pod("p").ctr(ctr("c").gpus(1).gpumem("16Gi")).build())))
        .isEqualTo(PodAdmission.UNCHANGED);
  }

  @Test
  void namespaceLookupFails_admitsUnchangedWithWarning() {
    FakeCluster cluster = new FakeCluster();
    cluster.namespaceFailure = new IllegalStateException("apiserver down");
    PodAdmission admission = new PodAdmission(DEFAULTS, cluster);

    AdmissionDecision d = admission.admit("team", raw(pod("p").ctr(ctr("c").gpus(1)).build()));

    assertThat(d).isInstanceOf(AdmissionDecision.Allowed.class);
    AdmissionDecision.Allowed a = (AdmissionDecision.Allowed) d;
    assertThat(a.patch()).isEmpty();
    assertThat(a.warnings()).singleElement().asString().contains("namespace team");
  }

  @Test
  void podsWithoutGpusAndNothingToDo_needNoNamespaceLookup() {
    FakeCluster cluster = new FakeCluster();
    PodAdmission admission = new PodAdmission(DEFAULTS, cluster);
    admission.admit("team", raw(pod("p").ctr(ctr("c").limit("cpu", "2")).build()));
    assertThat(cluster.namespaceCalls).isZero();
  }

  @Test
  void unknownFieldsOfThePod_areNotTouched() {
    ObjectNode original = raw(pod("p").ctr(ctr("c").gpus(1)).build());
    ((ObjectNode) original.path("spec")).put("futureField", "x");
    ((ObjectNode) original.path("spec").path("containers").get(0)).put("alsoNew", 3);
    AdmissionDecision d = new PodAdmission(DEFAULTS, new FakeCluster()).admit("team", original);
    JsonNode applied = JsonPatch.apply(((AdmissionDecision.Allowed) d).patch(), original);
    assertThat(applied.path("spec").path("futureField").asString()).isEqualTo("x");
    assertThat(applied.path("spec").path("containers").get(0).path("alsoNew").asInt()).isEqualTo(3);
    assertThat(applied.path("spec").path("schedulerName").asString()).isEqualTo("hami-scheduler");
  }
}
