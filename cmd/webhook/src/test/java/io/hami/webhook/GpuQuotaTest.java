package io.hami.webhook;

import static io.hami.webhook.Fixtures.ctr;
import static io.hami.webhook.Fixtures.pod;
import static io.hami.webhook.Fixtures.quota;
import static io.hami.webhook.Fixtures.raw;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ScopeSelectorBuilder;
import io.hami.model.resource.RequestRule;
import io.hami.model.resource.ResourceNames;
import io.hami.webhook.Fixtures.FakeCluster;
import io.hami.webhook.GpuQuota.Usage;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GpuQuotaTest {

  private static final GpuQuota QUOTA = new GpuQuota(RequestRule.NVIDIA_DEFAULTS);

  /** Usage derived from pods as the quota counts them. */
  record UsageCase(String name, Pod pod, Usage want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<UsageCase> usages() {
    return Stream.of(
        new UsageCase("no GPU", pod("p").ctr(ctr("c")).build(), Usage.ZERO),
        new UsageCase(
            "one GPU",
            pod("p").ctr(ctr("c").gpus(1).gpumem("4096").gpucores("30")).build(),
            new Usage(4096, 30)),
        new UsageCase(
            "four GPUs count four times",
            pod("p").ctr(ctr("c").gpus(4).gpumem("4096").gpucores("25")).build(),
            new Usage(16384, 100)),
        new UsageCase(
            "app containers add up",
            pod("p")
                .ctr(ctr("a").gpus(1).gpumem("100").gpucores("10"))
                .ctr(ctr("b").gpus(2).gpumem("200").gpucores("20"))
                .build(),
            new Usage(500, 50)),
        new UsageCase(
            "largest init container when it is larger",
            pod("p")
                .init(ctr("i1").gpus(1).gpumem("500").gpucores("50"))
                .init(ctr("i2").gpus(1).gpumem("300").gpucores("10"))
                .ctr(ctr("a").gpus(1).gpumem("100").gpucores("10"))
                .build(),
            new Usage(500, 50)),
        new UsageCase(
            "percentage requests use no MiB until placed",
            pod("p").ctr(ctr("c").gpus(2).gpupct("50")).build(),
            Usage.ZERO),
        new UsageCase(
            "unusable values count nothing",
            pod("p").ctr(ctr("c").gpus(1).gpumem("16Gi")).build(),
            Usage.ZERO));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("usages")
  void requested(UsageCase c) {
    assertThat(QUOTA.requested(c.pod())).isEqualTo(c.want());
  }

  @Test
  void used_scheduledPodCountsWhatWasGranted() {
    Pod p =
        pod("p")
            .init(ctr("i").gpus(1).gpupct("50"))
            .ctr(ctr("a").gpus(2).gpupct("50"))
            .annotation(
                "hami.io/vgpu-devices-allocated",
                "GPU-i,NVIDIA,9000,20:;GPU-a,NVIDIA,40960,30:GPU-b,NVIDIA,40960,30:;")
            .build();
    assertThat(QUOTA.used(p)).isEqualTo(new Usage(81920, 60));
  }

  @Test
  void used_undecodableAnnotationFallsBackToTheRequest() {
    Pod p =
        pod("p")
            .ctr(ctr("a").gpus(1).gpumem("1000"))
            .annotation("hami.io/vgpu-devices-allocated", "garbage,,,:")
            .build();
    assertThat(QUOTA.used(p)).isEqualTo(new Usage(1000, 0));
  }

  /** A new pod against quotas and existing pods; null means it fits. */
  record CheckCase(
      String name,
      RequestRule rule,
      List<ResourceQuota> quotas,
      List<Pod> existing,
      Pod pod,
      @Nullable String deniedWith) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final ResourceQuota MEM_2000_CORES_400 =
      quota("gpu", "limits.nvidia.com/gpumem", "2000", "limits.nvidia.com/gpucores", "400");
  private static final Pod USING_1000_200 =
      pod("old").ctr(ctr("c").gpus(1).gpumem("1000").gpucores("200")).build();

  private static Pod asking(int gpus, String mem, String cores) {
    return pod("new").ctr(ctr("c").gpus(gpus).gpumem(mem).gpucores(cores)).build();
  }

  static Stream<CheckCase> checks() {
    RequestRule nvidia = RequestRule.NVIDIA_DEFAULTS;
    RequestRule factor2 = new RequestRule(ResourceNames.NVIDIA, "NVIDIA", 2, 0, 0);
    List<ResourceQuota> q = List.of(MEM_2000_CORES_400);
    List<Pod> used = List.of(USING_1000_200);
    return Stream.of(
        new CheckCase("fits", nvidia, q, used, asking(1, "500", "100"), null),
        new CheckCase(
            "memory over",
            nvidia,
            q,
            used,
            asking(1, "1500", "100"),
            "limits.nvidia.com/gpumem requested 1500 MiB"),
        new CheckCase(
            "cores over",
            nvidia,
            q,
            used,
            asking(1, "500", "300"),
            "limits.nvidia.com/gpucores requested 300%"),
        new CheckCase("exactly at the limit fits", nvidia, q, used, asking(1, "1000", "100"), null),
        new CheckCase(
            "four GPUs count four times",
            nvidia,
            q,
            used,
            asking(4, "300", "10"),
            "requested 1200 MiB (per-GPU amount x GPU count), used 1000 MiB, limited 2000 MiB"),
        new CheckCase(
            "memoryFactor 2: limit doubles, request doubles (fits)",
            factor2,
            q,
            used,
            asking(1, "1000", "0"),
            null),
        new CheckCase(
            "memoryFactor 2: over",
            factor2,
            q,
            used,
            asking(1, "5000", "0"),
            "requested 10000 MiB"),
        new CheckCase(
            "limit 0 blocks",
            nvidia,
            List.of(quota("zero", "limits.nvidia.com/gpumem", "0")),
            List.of(),
            asking(1, "500", "0"),
            "limited 0 MiB"),
        new CheckCase(
            "finished pods release their share",
            nvidia,
            q,
            List.of(
                pod("done").phase("Succeeded").ctr(ctr("c").gpus(1).gpumem("1900")).build(),
                pod("failed").phase("Failed").ctr(ctr("c").gpus(1).gpumem("1900")).build()),
            asking(1, "1900", "0"),
            null),
        new CheckCase(
            "quota without GPU entries",
            nvidia,
            List.of(quota("cpu", "limits.cpu", "2")),
            used,
            asking(8, "80000", "100"),
            null),
        new CheckCase(
            "the tightest of several quotas",
            nvidia,
            List.of(
                quota("a", "limits.nvidia.com/gpumem", "100000"),
                quota("b", "limits.nvidia.com/gpumem", "1200")),
            used,
            asking(1, "500", "0"),
            "exceeding resource quota b"),
        new CheckCase(
            "quota scoped to BestEffort pods does not apply to others",
            nvidia,
            List.of(scoped(quota("be", "limits.nvidia.com/gpumem", "10"), "BestEffort")),
            List.of(),
            pod("new").ctr(ctr("c").gpus(1).gpumem("500").limit("cpu", "1")).build(),
            null),
        new CheckCase(
            "quota scoped to BestEffort applies to a pod without cpu or memory",
            nvidia,
            List.of(scoped(quota("be", "limits.nvidia.com/gpumem", "10"), "BestEffort")),
            List.of(),
            asking(1, "500", "0"),
            "exceeding resource quota be"),
        new CheckCase(
            "priority-class scope not matching",
            nvidia,
            List.of(priorityScoped(quota("hi", "limits.nvidia.com/gpumem", "10"), "high")),
            List.of(),
            asking(1, "500", "0"),
            null));
  }

  private static ResourceQuota scoped(ResourceQuota q, String scope) {
    return new ResourceQuotaBuilder(q).editSpec().withScopes(scope).endSpec().build();
  }

  private static ResourceQuota priorityScoped(ResourceQuota q, String priorityClass) {
    return new ResourceQuotaBuilder(q)
        .editSpec()
        .withScopeSelector(
            new ScopeSelectorBuilder()
                .addNewMatchExpression()
                .withScopeName("PriorityClass")
                .withOperator("In")
                .withValues(priorityClass)
                .endMatchExpression()
                .build())
        .endSpec()
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("checks")
  void check(CheckCase c) {
    GpuQuota quota = new GpuQuota(c.rule());
    var result = quota.check(c.pod(), quota.requested(c.pod()), c.quotas(), c.existing());
    if (c.deniedWith() == null) {
      assertThat(result).isEmpty();
    } else {
      assertThat(result).get().asString().contains(c.deniedWith());
    }
  }

  @Test
  void admission_deniesOverQuotaWithForbidden() {
    FakeCluster cluster = new FakeCluster();
    cluster.quotas.add(MEM_2000_CORES_400);
    cluster.pods.add(USING_1000_200);
    PodAdmission admission = new PodAdmission(WebhookConfig.defaults(), cluster);

    AdmissionDecision d = admission.admit("team", raw(asking(2, "800", "10")));

    assertThat(d).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) d).code()).isEqualTo(403);
    assertThat(((AdmissionDecision.Denied) d).message())
        .startsWith("exceeding resource quota gpu: limits.nvidia.com/gpumem requested 1600 MiB");
  }

  @Test
  void admission_countsInjectedExclusiveCores() {
    FakeCluster cluster = new FakeCluster();
    cluster.quotas.add(quota("gpu", "limits.nvidia.com/gpucores", "150"));
    PodAdmission admission = new PodAdmission(WebhookConfig.defaults(), cluster);

    // gpu 2 alone is two whole cards: cores 100 each are injected, 200 > 150.
    AdmissionDecision d = admission.admit("team", raw(pod("p").ctr(ctr("c").gpus(2)).build()));

    assertThat(d).isInstanceOf(AdmissionDecision.Denied.class);
    assertThat(((AdmissionDecision.Denied) d).message()).contains("gpucores requested 200%");
  }

  @Test
  void admission_listsPodsOnlyWhenAGpuQuotaApplies() {
    FakeCluster cluster = new FakeCluster();
    cluster.quotas.add(quota("cpu", "limits.cpu", "4"));
    PodAdmission admission = new PodAdmission(WebhookConfig.defaults(), cluster);

    AdmissionDecision d = admission.admit("team", raw(asking(1, "100", "10")));

    assertThat(d).isInstanceOf(AdmissionDecision.Allowed.class);
    assertThat(cluster.podCalls).isZero();
  }

  @Test
  void admission_quotaLookupFailureAdmitsWithWarning() {
    FakeCluster cluster = new FakeCluster();
    cluster.quotaFailure = new IllegalStateException("timeout");
    PodAdmission admission = new PodAdmission(WebhookConfig.defaults(), cluster);

    AdmissionDecision d = admission.admit("team", raw(asking(1, "100", "10")));

    assertThat(d).isInstanceOf(AdmissionDecision.Allowed.class);
    AdmissionDecision.Allowed a = (AdmissionDecision.Allowed) d;
    assertThat(a.patch()).isNotEmpty();
    assertThat(a.warnings()).singleElement().asString().contains("could not check GPU quota");
  }
}
