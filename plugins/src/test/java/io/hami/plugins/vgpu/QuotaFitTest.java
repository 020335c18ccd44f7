package io.hami.plugins.vgpu;

import static io.hami.plugins.vgpu.Dev.dev;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Protocol §6.8 and vector V85: the namespace quota in the per-device fit. */
final class QuotaFitTest {

  static final String MEM = "nvidia.com/gpumem";
  static final String CORES = "nvidia.com/gpucores";

  record Case(
      String name,
      Map<String, String> hard,
      String namespace,
      int factor,
      int mem,
      int cores,
      boolean fits) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Case c(String name, int factor, int mem, int cores, boolean fits) {
    return new Case(
        name,
        Map.of("limits." + MEM, "2000", "limits." + CORES, "400"),
        "team",
        factor,
        mem,
        cores,
        fits);
  }

  static Stream<Case> cases() {
    return Stream.of(
        c("V85 within both limits", 1, 500, 100, true),
        c("V85 memory over", 1, 1500, 100, false),
        c("V85 cores over", 1, 500, 300, false),
        new Case(
            "cores over at the fit", Map.of("limits." + CORES, "250"), "team", 1, 500, 100, false),
        c("V85 factor 2 fits", 2, 1000, 100, true),
        c("V85 factor 2 over", 2, 5000, 100, false),
        c("V85 exactly at the limit", 1, 1000, 200, true),
        new Case(
            "V85 unknown namespace", Map.of("limits." + MEM, "2000"), "other", 1, 1500, 300, true),
        new Case("V85 limit 0 blocks", Map.of("limits." + MEM, "0"), "team", 1, 500, 0, false),
        new Case(
            "unrelated entries ignored", Map.of("limits.cpu", "1"), "team", 1, 5000, 100, true),
        new Case(
            "malformed limit ignored",
            Map.of("limits." + MEM, "lots"),
            "team",
            1,
            5000,
            100,
            true));
  }

  static ResourceQuota quota(String ns, String name, Map<String, String> hard) {
    ResourceQuotaBuilder b =
        new ResourceQuotaBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata();
    var spec = b.withNewSpec();
    hard.forEach((k, v) -> spec.addToHard(k, new Quantity(v)));
    return spec.endSpec().build();
  }

  /** An index where namespace {@code team} holds 1000 MiB and 200 cores. */
  static DeviceUsageIndex usedIndex() {
    DeviceUsageIndex index =
        new DeviceUsageIndex(n -> DeviceUsageIndex.Registered.NONE, p -> null, (n, m) -> {});
    index.reserve("held-1", "team", "n0", usage("g0", 600, 120));
    index.reserve("held-2", "team", "n0", usage("g1", 400, 80));
    return index;
  }

  static PodUsage usage(String id, int mem, int cores) {
    return new PodUsage(ImmutableMap.of(id, new PodUsage.Usage(1, mem, cores, "NVIDIA")));
  }

  static DeviceFitter.QuotaCheck check(
      NamespaceQuotas quotas, DeviceUsageIndex index, String ns, int factor) {
    NamespaceQuotas.Limits l = quotas.limits(ns);
    NamespaceUsage u = index.namespace(ns);
    return NamespaceQuota.of(
        "NVIDIA",
        new NamespaceQuota.VendorQuota(
            l.mem(), l.cores(), u.memMiB("NVIDIA"), u.cores("NVIDIA"), factor));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fitLevel(Case c) {
    NamespaceQuotas quotas = new NamespaceQuotas(MEM, CORES);
    quotas.upsert(quota("team", "gpu", c.hard()));
    DeviceFitter.QuotaCheck q = check(quotas, usedIndex(), c.namespace(), c.factor());
    assertThat(q.fits("NVIDIA", c.mem(), c.cores())).as("quota").isEqualTo(c.fits());
    if (c.cores() > 100) {
      return; // the fit clamps cores to 100 before the quota (protocol §6.6)
    }
    FitReasons reasons = new FitReasons(1);
    List<DevicePick> picks =
        DeviceFitter.fit(
            List.of(dev("g0").mem(16000).build()),
            FitVectorsTest.req(1, c.mem(), c.cores()),
            DeviceFilter.NONE,
            GpuPolicy.SPREAD,
            false,
            PairScores.NONE,
            q,
            reasons);
    assertThat(picks != null).as("fits").isEqualTo(c.fits());
    assertThat(reasons.message()).isEqualTo(c.fits() ? "" : "1/1 ResourceQuotaNotFit");
  }

  record MultiCase(
      String name, @Nullable GpuPolicy policy, int nums, int mem, @Nullable String want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<MultiCase> multi() {
    GpuPolicy topo = GpuPolicy.parse("topology-aware");
    return Stream.of(
        // 1000 used of 2000: two picks of 400 fit, three do not (each pick alone would).
        new MultiCase("two picks fit", GpuPolicy.SPREAD, 2, 400, null),
        new MultiCase(
            "three picks exceed together",
            GpuPolicy.SPREAD,
            3,
            400,
            "1/3 ResourceQuotaNotFit, 2/3 AllocatedCardsInsufficientRequest"),
        new MultiCase(
            "topology three picks exceed together",
            topo,
            3,
            400,
            "1/3 ResourceQuotaNotFit, 2/3 AllocatedCardsInsufficientRequest"),
        new MultiCase("topology two of three fit", topo, 2, 400, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("multi")
  void multiGpuPicksCountTogether(MultiCase c) {
    NamespaceQuotas quotas = new NamespaceQuotas(MEM, CORES);
    quotas.upsert(quota("team", "gpu", Map.of("limits." + MEM, "2000")));
    DeviceFitter.QuotaCheck q = check(quotas, usedIndex(), "team", 1);
    List<DeviceUsage> devs =
        List.of(
            dev("g0").mem(8000).build(), dev("g1").mem(8000).build(), dev("g2").mem(8000).build());
    FitReasons reasons = new FitReasons(devs.size());
    List<DevicePick> picks =
        DeviceFitter.fit(
            devs,
            FitVectorsTest.req(c.nums(), c.mem(), 0),
            DeviceFilter.NONE,
            c.policy(),
            false,
            PairScores.NONE,
            q,
            reasons);
    if (c.want() == null) {
      assertThat(picks).hasSize(c.nums());
    } else {
      assertThat(picks).isNull();
      assertThat(reasons.message()).isEqualTo(c.want());
    }
  }

  @Test
  void containersOfOnePodCountTogether() {
    NamespaceQuotas quotas = new NamespaceQuotas(MEM, CORES);
    quotas.upsert(quota("team", "gpu", Map.of("limits." + MEM, "2000")));
    DeviceFitter.QuotaCheck q = check(quotas, usedIndex(), "team", 1);
    NodeDevices node =
        NodeDevices.of(
            "n1", ImmutableList.of(dev("g0").mem(8000).build(), dev("g1").mem(8000).build()));
    PodGpuOptions opts =
        new PodGpuOptions(
            DeviceFilter.NONE,
            GpuPolicy.SPREAD,
            NodePolicy.parse("binpack"),
            ScoringWeights.DEFAULT,
            false);
    VendorRequest six = FitVectorsTest.req(1, 600, 0);
    NodePlacer placer = NodePlacer.standard();
    // Two app containers of 600 each: 1000 + 1200 > 2000.
    PodRequests apps = PodRequests.of(List.of(List.of(six), List.of(six)), 0);
    assertThat(placer.place(node, apps, opts, null, q).fits()).isFalse();
    assertThat(placer.feasible(node, apps, opts, q)).isNotNull();
    // An init container runs before the app: each stays within the 1000 left.
    PodRequests initThenApp = PodRequests.of(List.of(List.of(six), List.of(six)), 1);
    assertThat(placer.place(node, initThenApp, opts, null, q).fits()).isTrue();
    // Without the quota both fit.
    assertThat(placer.place(node, apps, opts, null, DeviceFitter.QuotaCheck.NONE).fits()).isTrue();
  }

  static NamespaceUsage nvidia(long mem, long cores) {
    return new NamespaceUsage(ImmutableMap.of("NVIDIA", new NamespaceUsage.Totals(mem, cores)));
  }

  @Test
  void namespaceTotalsFollowPods() {
    DeviceUsageIndex index = usedIndex();
    assertThat(index.namespace("team")).isEqualTo(nvidia(1000, 200));
    index.release("held-1");
    assertThat(index.namespace("team")).isEqualTo(nvidia(400, 80));
    index.reserve("held-2", "team", "n1", usage("g5", 100, 10));
    assertThat(index.namespace("team")).isEqualTo(nvidia(100, 10));
    index.unreserve("held-2");
    assertThat(index.namespace("team")).isEqualTo(NamespaceUsage.NONE);
  }

  @Test
  void namespaceTotalsAreKeptPerVendor() {
    DeviceUsageIndex index = usedIndex();
    index.reserve(
        "dcu-1",
        "team",
        "n2",
        new PodUsage(ImmutableMap.of("d0", new PodUsage.Usage(1, 5000, 100, "DCU"))));
    assertThat(index.namespace("team").memMiB("NVIDIA")).isEqualTo(1000);
    assertThat(index.namespace("team").memMiB("DCU")).isEqualTo(5000);
    assertThat(index.namespace("team").cores("DCU")).isEqualTo(100);
    index.release("dcu-1");
    assertThat(index.namespace("team")).isEqualTo(nvidia(1000, 200));
  }

  @Test
  void eachVendorIsHeldToItsOwnLimits() {
    NamespaceQuotas quotas =
        new NamespaceQuotas(
            List.of(
                new NamespaceQuotas.Tracked("NVIDIA", MEM, CORES),
                new NamespaceQuotas.Tracked("DCU", "hygon.com/dcumem", "hygon.com/dcucores")));
    quotas.upsert(
        quota("team", "gpu", Map.of("limits." + MEM, "2000", "limits.hygon.com/dcumem", "6000")));
    assertThat(quotas.limits("team", "DCU")).isEqualTo(new NamespaceQuotas.Limits(6000, -1));
    DeviceUsageIndex index = usedIndex(); // 1000 MiB of NVIDIA memory
    index.reserve(
        "dcu-1",
        "team",
        "n2",
        new PodUsage(ImmutableMap.of("d0", new PodUsage.Usage(1, 5000, 100, "DCU"))));
    NamespaceUsage u = index.namespace("team");
    NamespaceQuota q =
        new NamespaceQuota(
            ImmutableMap.of(
                "NVIDIA",
                    new NamespaceQuota.VendorQuota(
                        2000, -1, u.memMiB("NVIDIA"), u.cores("NVIDIA"), 1),
                "DCU",
                    new NamespaceQuota.VendorQuota(6000, -1, u.memMiB("DCU"), u.cores("DCU"), 1)));
    // NVIDIA: 1000 used of 2000, the 5000 MiB on DCUs do not count.
    assertThat(q.fits("NVIDIA", 1000, 0)).isTrue();
    assertThat(q.fits("NVIDIA", 1001, 0)).isFalse();
    // DCU: 5000 used of 6000, the NVIDIA memory does not count.
    assertThat(q.fits("DCU", 1000, 0)).isTrue();
    assertThat(q.fits("DCU", 1001, 0)).isFalse();
    assertThat(q.fits("MLU", 100000, 100)).isTrue();
  }

  @Test
  void severalQuotasTakeTheSmallestAndDeletesRestore() {
    NamespaceQuotas quotas = new NamespaceQuotas(MEM, CORES);
    ResourceQuota a = quota("team", "a", Map.of("limits." + MEM, "2000", "limits." + CORES, "400"));
    ResourceQuota b = quota("team", "b", Map.of("limits." + MEM, "1000"));
    quotas.upsert(a);
    quotas.upsert(b);
    assertThat(quotas.limits("team")).isEqualTo(new NamespaceQuotas.Limits(1000, 400));
    quotas.delete(b);
    assertThat(quotas.limits("team")).isEqualTo(new NamespaceQuotas.Limits(2000, 400));
    quotas.upsert(quota("team", "a", Map.of("limits.cpu", "4")));
    assertThat(quotas.limits("team")).isEqualTo(NamespaceQuotas.Limits.NONE);
  }

  @Test
  void otherVendorsAreNotLimited() {
    assertThat(
            NamespaceQuota.of("NVIDIA", new NamespaceQuota.VendorQuota(0, 0, 0, 0, 1))
                .fits("DCU", 500, 50))
        .isTrue();
    assertThat(
            NamespaceQuota.of("NVIDIA", new NamespaceQuota.VendorQuota(0, -1, 0, 0, 1))
                .fits("NVIDIA", 1, 0))
        .isFalse();
    assertThat(
            NamespaceQuota.of("NVIDIA", new NamespaceQuota.VendorQuota(-1, -1, 5000, 500, 1))
                .fits("NVIDIA", 500, 50))
        .isTrue();
  }
}
