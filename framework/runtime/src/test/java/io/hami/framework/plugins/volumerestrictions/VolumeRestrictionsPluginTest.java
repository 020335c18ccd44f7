package io.hami.framework.plugins.volumerestrictions;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.MakePvc;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VolumeRestrictionsPluginTest {

  private static Volume gce(String pd, boolean readOnly) {
    return new VolumeBuilder()
        .withName("v-" + pd)
        .withNewGcePersistentDisk()
        .withPdName(pd)
        .withReadOnly(readOnly)
        .endGcePersistentDisk()
        .build();
  }

  private static Volume ebs(String id) {
    return new VolumeBuilder()
        .withName("v-" + id)
        .withNewAwsElasticBlockStore()
        .withVolumeID(id)
        .endAwsElasticBlockStore()
        .build();
  }

  private static Volume iscsi(String iqn, boolean readOnly) {
    return new VolumeBuilder()
        .withName("v-iscsi")
        .withNewIscsi()
        .withIqn(iqn)
        .withTargetPortal("10.0.0.1:3260")
        .withLun(0)
        .withReadOnly(readOnly)
        .endIscsi()
        .build();
  }

  private static Volume rbd(String monitor, @Nullable String pool, String image, boolean ro) {
    return new VolumeBuilder()
        .withName("v-rbd")
        .withNewRbd()
        .withMonitors(monitor)
        .withPool(pool)
        .withImage(image)
        .withReadOnly(ro)
        .endRbd()
        .build();
  }

  private static Pod with(String name, Volume v) {
    return MakePod.named(name).volume(v).obj();
  }

  record Case(String name, Pod pod, List<Pod> onNode, Code want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> diskCases() {
    Code ok = Code.SUCCESS;
    Code no = Code.UNSCHEDULABLE;
    return Stream.of(
        new Case("no volumes", MakePod.named("p").obj(), List.of(with("q", gce("a", false))), ok),
        new Case(
            "GCE PD free", with("p", gce("a", false)), List.of(with("q", gce("b", false))), ok),
        new Case(
            "GCE PD taken", with("p", gce("a", false)), List.of(with("q", gce("a", true))), no),
        new Case(
            "GCE PD both read-only",
            with("p", gce("a", true)),
            List.of(with("q", gce("a", true))),
            ok),
        new Case("EBS taken", with("p", ebs("vol-1")), List.of(with("q", ebs("vol-1"))), no),
        new Case("EBS other", with("p", ebs("vol-1")), List.of(with("q", ebs("vol-2"))), ok),
        new Case(
            "iSCSI same IQN",
            with("p", iscsi("iqn.a", false)),
            List.of(with("q", iscsi("iqn.a", true))),
            no),
        new Case(
            "iSCSI both read-only",
            with("p", iscsi("iqn.a", true)),
            List.of(with("q", iscsi("iqn.a", true))),
            ok),
        new Case(
            "RBD same image, default pool",
            with("p", rbd("m1", null, "img", false)),
            List.of(with("q", rbd("m1", "rbd", "img", false))),
            no),
        new Case(
            "RBD other pool",
            with("p", rbd("m1", "a", "img", false)),
            List.of(with("q", rbd("m1", "b", "img", false))),
            ok),
        new Case(
            "RBD other monitors",
            with("p", rbd("m1", "a", "img", false)),
            List.of(with("q", rbd("m2", "a", "img", false))),
            ok));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("diskCases")
  void diskConflicts(Case c) {
    NodeInfo node = NodeInfo.of(MakeNode.named("n1").obj());
    for (Pod p : c.onNode()) {
      node = node.withPod(PodInfo.of(p));
    }
    Status s = run(new FakeHandle(), c.pod(), node, List.of(node));
    assertThat(s.code()).isEqualTo(c.want());
    if (c.want() != Code.SUCCESS) {
      assertThat(s.reasons()).containsExactly(VolumeRestrictionsPlugin.REASON_DISK_CONFLICT);
    }
  }

  @Test
  void readWriteOncePodClaim_inUseElsewhere_rejectsEveryNode() {
    FakeHandle handle =
        new FakeHandle().withObjects(MakePvc.named("solo").accessModes("ReadWriteOncePod").obj());
    Pod pod = MakePod.named("p").pvc("data", "solo").obj();
    NodeInfo empty = NodeInfo.of(MakeNode.named("n1").obj());
    NodeInfo holder =
        NodeInfo.of(MakeNode.named("n2").obj())
            .withPod(PodInfo.of(MakePod.named("q").nodeName("n2").pvc("d", "solo").obj()));
    Status s = run(handle, pod, empty, List.of(empty, holder));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(s.reasons()).containsExactly(VolumeRestrictionsPlugin.REASON_RWOP_CONFLICT);
    // Nobody else uses it: the plugin has nothing to check.
    assertThat(run(handle, pod, empty, List.of(empty)).isSuccess()).isTrue();
  }

  @Test
  void readWriteOncePod_removePodLiftsTheConflict_addPodRestoresIt() {
    FakeHandle handle =
        new FakeHandle().withObjects(MakePvc.named("solo").accessModes("ReadWriteOncePod").obj());
    VolumeRestrictionsPlugin plugin = new VolumeRestrictionsPlugin(handle);
    Pod pod = MakePod.named("p").pvc("data", "solo").obj();
    PodInfo victim = PodInfo.of(MakePod.named("q").nodeName("n2").pvc("d", "solo").obj());
    NodeInfo holder = NodeInfo.of(MakeNode.named("n2").obj()).withPod(victim);
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, Snapshot.of(List.of(holder)));
    assertThat(plugin.filter(state, pod, holder).isRejected()).isTrue();
    plugin.removePod(state, pod, victim, holder);
    assertThat(plugin.filter(state, pod, holder.withoutPod(victim.uid())).isSuccess()).isTrue();
    plugin.addPod(state, pod, victim, holder);
    assertThat(plugin.filter(state, pod, holder).isRejected()).isTrue();
  }

  @Test
  void otherAccessModes_areNotRestricted() {
    FakeHandle handle = new FakeHandle().withObjects(MakePvc.named("shared").obj());
    Pod pod = MakePod.named("p").pvc("data", "shared").obj();
    NodeInfo holder =
        NodeInfo.of(MakeNode.named("n2").obj())
            .withPod(PodInfo.of(MakePod.named("q").pvc("d", "shared").obj()));
    assertThat(run(handle, pod, holder, List.of(holder)).isSuccess()).isTrue();
  }

  @Test
  void missingClaim_isUnresolvable() {
    Pod pod = MakePod.named("p").pvc("data", "nope").obj();
    NodeInfo n = NodeInfo.of(MakeNode.named("n1").obj());
    Status s = run(new FakeHandle(), pod, n, List.of(n));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.reasons()).containsExactly("persistentvolumeclaim \"nope\" not found");
  }

  @Test
  void podDeleteHint_queuesWhenTheDeletedPodHeldTheDiskOrClaim() {
    VolumeRestrictionsPlugin plugin = new VolumeRestrictionsPlugin(new FakeHandle());
    var hint = plugin.eventsToRegister().get(0).hint();
    assertThat(hint).isNotNull();
    Pod pod = MakePod.named("p").volume(ebs("vol-1")).pvc("d", "solo").obj();
    assertThat(hint.hint(pod, with("q", ebs("vol-1")), null).name()).isEqualTo("QUEUE");
    assertThat(hint.hint(pod, MakePod.named("r").pvc("x", "solo").obj(), null).name())
        .isEqualTo("QUEUE");
    assertThat(hint.hint(pod, with("s", ebs("vol-2")), null).name()).isEqualTo("SKIP");
  }

  private static Status run(FakeHandle handle, Pod pod, NodeInfo node, List<NodeInfo> all) {
    VolumeRestrictionsPlugin plugin = new VolumeRestrictionsPlugin(handle);
    CycleState state = new CycleState();
    PreFilterResult r = plugin.preFilter(state, pod, Snapshot.of(all));
    if (r.status().isSkip()) {
      return Status.success();
    }
    if (!r.status().isSuccess()) {
      return r.status();
    }
    return plugin.filter(state, pod, node);
  }
}
