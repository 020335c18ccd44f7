package io.hami.framework.plugins.volumezone;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.MakePv;
import io.hami.framework.testing.MakePvc;
import io.hami.framework.testing.MakeStorage;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VolumeZonePluginTest {
  private static final String ZONE = VolumeZonePlugin.ZONE;
  private static final String BETA_ZONE = VolumeZonePlugin.BETA_ZONE;
  private static final String REGION = VolumeZonePlugin.REGION;
  private static final Pod POD = MakePod.named("p").pvc("data", "data").obj();
  private static final HasMetadata BOUND = MakePvc.named("data").boundTo("pv1").obj();

  record Case(
      String name, List<HasMetadata> objects, Node node, Code want, @Nullable String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static HasMetadata pv(String key, String value) {
    return MakePv.named("pv1").label(key, value).obj();
  }

  static Stream<Case> cases() {
    Code ok = Code.SUCCESS;
    Code never = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
    Node zoneA = MakeNode.named("n").label(ZONE, "a").label(REGION, "r1").obj();
    Node zoneB = MakeNode.named("n").label(ZONE, "b").label(REGION, "r1").obj();
    Node betaA = MakeNode.named("n").label(BETA_ZONE, "a").obj();
    Node bare = MakeNode.named("n").obj();
    String conflict = VolumeZonePlugin.REASON_CONFLICT;
    return Stream.of(
        new Case("PV in the node's zone", List.of(BOUND, pv(ZONE, "a")), zoneA, ok, null),
        new Case("PV in another zone", List.of(BOUND, pv(ZONE, "a")), zoneB, never, conflict),
        new Case("PV in one of several zones", List.of(BOUND, pv(ZONE, "b__c")), zoneB, ok, null),
        new Case("PV region matches", List.of(BOUND, pv(REGION, "r1")), zoneB, ok, null),
        new Case(
            "beta PV label matches the node's GA label",
            List.of(BOUND, pv(BETA_ZONE, "a")),
            zoneA,
            ok,
            null),
        new Case(
            "beta PV label on a beta node",
            List.of(BOUND, pv(BETA_ZONE, "b")),
            betaA,
            never,
            conflict),
        new Case("node without topology labels", List.of(BOUND, pv(ZONE, "a")), bare, ok, null),
        new Case(
            "PV without topology labels",
            List.of(BOUND, MakePv.named("pv1").obj()),
            zoneA,
            ok,
            null),
        new Case(
            "malformed zone list is ignored", List.of(BOUND, pv(ZONE, "a__")), zoneB, ok, null),
        new Case(
            "missing claim", List.of(), zoneA, never, "persistentvolumeclaim \"data\" not found"),
        new Case("missing PV", List.of(BOUND), zoneA, never, "persistentvolume \"pv1\" not found"),
        new Case(
            "unbound WaitForFirstConsumer claim is skipped",
            List.of(
                MakePvc.named("data").storageClass("local").obj(),
                MakeStorage.storageClass(
                    "local", MakeStorage.NO_PROVISIONER, "WaitForFirstConsumer")),
            zoneA,
            ok,
            null),
        new Case(
            "unbound Immediate claim",
            List.of(
                MakePvc.named("data").storageClass("fast").obj(),
                MakeStorage.storageClass("fast", "csi", "Immediate")),
            zoneA,
            never,
            "PersistentVolume had no name"),
        new Case(
            "unbound claim without class",
            List.of(MakePvc.named("data").obj()),
            zoneA,
            never,
            "PersistentVolumeClaim had no pv name and storageClass name"),
        new Case(
            "unbound claim of a missing class",
            List.of(MakePvc.named("data").storageClass("gone").obj()),
            zoneA,
            never,
            "storageclass.storage.k8s.io \"gone\" not found"),
        new Case(
            "class without binding mode",
            List.of(
                MakePvc.named("data").storageClass("odd").obj(),
                MakeStorage.storageClass("odd", "csi", null)),
            zoneA,
            never,
            "VolumeBindingMode not set for StorageClass \"odd\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void preFilterThenFilter(Case c) {
    FakeHandle handle = new FakeHandle().withObjects(c.objects().toArray(HasMetadata[]::new));
    VolumeZonePlugin plugin = new VolumeZonePlugin(handle);
    NodeInfo node = NodeInfo.of(c.node());
    CycleState state = new CycleState();
    PreFilterResult r = plugin.preFilter(state, POD, Snapshot.of(List.of(node)));
    Status s =
        r.status().isSkip()
            ? Status.success()
            : r.status().isSuccess() ? plugin.filter(state, POD, node) : r.status();
    assertThat(s.code()).as(s.toString()).isEqualTo(c.want());
    if (c.reason() != null) {
      assertThat(s.reasons()).containsExactly(c.reason());
    }
  }

  @Test
  void hints_pvAndNodeTopologyChanges() {
    VolumeZonePlugin plugin = new VolumeZonePlugin(new FakeHandle());
    var events = plugin.eventsToRegister();
    var pvHint = events.get(2).hint();
    var nodeHint = events.get(3).hint();
    assertThat(pvHint).isNotNull();
    assertThat(nodeHint).isNotNull();
    assertThat(pvHint.hint(POD, pv(ZONE, "a"), pv(ZONE, "b"))).isEqualTo(QueueingHint.QUEUE);
    assertThat(pvHint.hint(POD, pv(ZONE, "a"), pv(ZONE, "a"))).isEqualTo(QueueingHint.SKIP);
    Node a = MakeNode.named("n").label(ZONE, "a").obj();
    Node a2 = MakeNode.named("n").label(ZONE, "a").label("x", "y").obj();
    Node b = MakeNode.named("n").label(ZONE, "b").obj();
    assertThat(nodeHint.hint(POD, a, b)).isEqualTo(QueueingHint.QUEUE);
    assertThat(nodeHint.hint(POD, a, a2)).isEqualTo(QueueingHint.SKIP);
    assertThat(nodeHint.hint(POD, null, a)).isEqualTo(QueueingHint.QUEUE);
  }
}
