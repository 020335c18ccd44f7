package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.PluginHarness;
import io.hami.model.Annotations;
import io.hami.model.testing.FakeGpus;
import io.hami.model.testing.MakeGpuNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Namespace GPU quotas (protocol §6.8) from ResourceQuota objects on fabric8's CRUD mock server,
 * through the plugin's own informer: each vendor is held to its own limit and its own usage.
 */
@EnableKubernetesMockClient(crud = true)
final class NamespaceQuotasIT {

  KubernetesClient client;

  FakeHandle handle;
  VgpuPlugin plugin;
  PluginHarness harness;

  static VgpuArgs args() {
    VgpuArgs d = VgpuArgs.DEFAULTS;
    return new VgpuArgs(
        d.nodeSchedulerPolicy(),
        d.gpuSchedulerPolicy(),
        d.scoreByVendor(),
        d.exclusiveWholeCards(),
        d.resourceCountName(),
        d.resourceMemoryName(),
        d.resourceMemoryPercentageName(),
        d.resourceCoreName(),
        d.memoryFactor(),
        d.defaultMemory(),
        d.defaultCores(),
        true,
        0,
        "",
        true,
        false,
        false,
        true);
  }

  @BeforeEach
  void setUp() {
    client.resourceQuotas().inNamespace("team").delete();
    handle = new FakeHandle().withClient(client);
    plugin = VgpuPlugin.create(args(), handle, new SharedGpuState());
    Node gpu = MakeGpuNode.named("gpu").gpus(FakeGpus.t4s("gpu", 2)).obj();
    Node dcu =
        MakeNode.named("dcu")
            .capacity("64", "256Gi", 110)
            .annotation(
                "hami.io/node-dcu-register",
                "DCU-0,4,16384,100,DCU,0,true,0,hami-core:DCU-1,4,16384,100,DCU,0,true,1,hami-core:")
            .obj();
    handle.fireNodeAdd(gpu);
    handle.fireNodeAdd(dcu);
    harness = PluginHarness.create().plugin(plugin).nodes(NodeInfo.of(gpu), NodeInfo.of(dcu));
    // The namespace already holds 1000 MiB of NVIDIA memory and 5000 MiB of DCU memory.
    handle.firePodAdd(
        held(
            "nv-held",
            "gpu",
            Annotations.VGPU_DEVICES_ALLOCATED,
            FakeGpus.uuid("gpu", 0) + ",NVIDIA,1000,10:;"));
    handle.firePodAdd(
        held("dcu-held", "dcu", "hami.io/dcu-devices-allocated", "DCU-0,DCU,5000,50:;"));
  }

  static Pod held(String name, String node, String key, String value) {
    return MakePod.named(name)
        .namespace("team")
        .uid("uid-" + name)
        .annotation(Annotations.VGPU_NODE, node)
        .annotation(key, value)
        .obj();
  }

  static Pod nvidia(int mem) {
    return MakePod.named("nv-" + mem)
        .namespace("team")
        .uid("nv-" + mem)
        .limit("nvidia.com/gpu", "1")
        .limit("nvidia.com/gpumem", Integer.toString(mem))
        .obj();
  }

  static Pod dcu(int mem) {
    return MakePod.named("dcu-" + mem)
        .namespace("team")
        .uid("dcu-" + mem)
        .limit("hygon.com/dcunum", "1")
        .limit("hygon.com/dcumem", Integer.toString(mem))
        .obj();
  }

  void putQuota(String name, Map<String, String> hard) {
    ResourceQuotaBuilder b =
        new ResourceQuotaBuilder()
            .withNewMetadata()
            .withNamespace("team")
            .withName(name)
            .endMetadata();
    var spec = b.withNewSpec();
    hard.forEach((k, v) -> spec.addToHard(k, new Quantity(v)));
    ResourceQuota q = spec.endSpec().build();
    client.resourceQuotas().inNamespace("team").resource(q).createOr(o -> o.update());
  }

  List<String> reasons(Pod pod, String node) {
    PluginHarness.Result r = harness.run(pod);
    return r.filterStatuses().containsKey(node)
        ? r.filterStatuses().get(node).reasons()
        : List.of();
  }

  boolean fits(Pod pod, String node) {
    return node.equals(harness.run(pod).selected());
  }

  @Test
  void eachVendorIsHeldToItsOwnQuotaAndUsage() {
    putQuota("gpu", Map.of("limits.nvidia.com/gpumem", "2000", "limits.hygon.com/dcumem", "6000"));
    await().atMost(Duration.ofSeconds(20)).until(() -> !fits(nvidia(1500), "gpu"));

    // NVIDIA: 1000 of 2000 used; the 5000 MiB on DCUs do not count.
    assertThat(fits(nvidia(1000), "gpu")).isTrue();
    assertThat(reasons(nvidia(1500), "gpu")).containsExactly("ResourceQuotaNotFit");
    // DCU: 5000 of 6000 used; the NVIDIA memory does not count.
    assertThat(fits(dcu(1000), "dcu")).isTrue();
    assertThat(reasons(dcu(1500), "dcu")).containsExactly("ResourceQuotaNotFit");

    // Raising the NVIDIA limit through the API lets the larger pod in; DCU is unchanged.
    putQuota("gpu", Map.of("limits.nvidia.com/gpumem", "3000", "limits.hygon.com/dcumem", "6000"));
    await().atMost(Duration.ofSeconds(20)).until(() -> fits(nvidia(1500), "gpu"));
    assertThat(reasons(dcu(1500), "dcu")).containsExactly("ResourceQuotaNotFit");

    // A second, tighter quota on DCU wins; deleting every quota lifts the limits.
    putQuota("dcu-only", Map.of("limits.hygon.com/dcumem", "5500"));
    await().atMost(Duration.ofSeconds(20)).until(() -> !fits(dcu(1000), "dcu"));
    assertThat(fits(dcu(500), "dcu")).isTrue();
    client.resourceQuotas().inNamespace("team").delete();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> fits(dcu(1500), "dcu") && fits(nvidia(5000), "gpu"));
  }

  @Test
  void otherNamespacesAreNotLimited() {
    putQuota("gpu", Map.of("limits.nvidia.com/gpumem", "0"));
    await().atMost(Duration.ofSeconds(20)).until(() -> !fits(nvidia(100), "gpu"));
    Pod elsewhere =
        MakePod.named("free")
            .namespace("other")
            .uid("free")
            .limit("nvidia.com/gpu", "1")
            .limit("nvidia.com/gpumem", "100")
            .obj();
    assertThat(fits(elsewhere, "gpu")).isTrue();
  }
}
