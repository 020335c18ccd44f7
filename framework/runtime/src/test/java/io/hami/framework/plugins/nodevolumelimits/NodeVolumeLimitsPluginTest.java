package io.hami.framework.plugins.nodevolumelimits;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
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
import io.hami.framework.testing.MakePv;
import io.hami.framework.testing.MakePvc;
import io.hami.framework.testing.MakeStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeVolumeLimitsPluginTest {
  private static final String EBS = "ebs.csi.aws.com";
  private static final String GCE = "pd.csi.storage.gke.io";

  /** A bound claim {@code name} on a CSI PV of {@code driver} with handle {@code handle}. */
  private static List<HasMetadata> csiClaim(String name, String driver, String handle) {
    PersistentVolumeClaim c = MakePvc.named(name).boundTo("pv-" + name).obj();
    return List.of(c, MakePv.named("pv-" + name).csi(driver, handle).boundTo(c).obj());
  }

  private static Pod pod(String name, String... claims) {
    MakePod p = MakePod.named(name);
    for (String c : claims) {
      p.pvc("v-" + c, c);
    }
    return p.obj();
  }

  record Case(
      String name,
      Pod pod,
      List<Pod> onNode,
      List<HasMetadata> objects,
      Code want,
      @Nullable String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  @SafeVarargs
  private static List<HasMetadata> objs(List<HasMetadata>... parts) {
    List<HasMetadata> out = new ArrayList<>();
    for (List<HasMetadata> p : parts) {
      out.addAll(p);
    }
    return out;
  }

  static Stream<Case> cases() {
    Code ok = Code.SUCCESS;
    Code no = Code.UNSCHEDULABLE;
    String max = NodeVolumeLimitsPlugin.REASON_MAX_VOLUME_COUNT;
    HasMetadata limit2 = MakeStorage.csiNode("n1").driver(EBS, 2).driver(GCE, null).obj();
    List<HasMetadata> base =
        objs(
            csiClaim("a", EBS, "vol-a"),
            csiClaim("b", EBS, "vol-b"),
            csiClaim("c", EBS, "vol-c"),
            csiClaim("g", GCE, "disk-g"),
            List.of(limit2));
    return Stream.of(
        new Case("within the limit", pod("p", "c"), List.of(pod("q", "a")), base, ok, null),
        new Case("over the limit", pod("p", "c"), List.of(pod("q", "a", "b")), base, no, max),
        new Case(
            "a volume already on the node is not counted twice",
            pod("p", "a"),
            List.of(pod("q", "a", "b")),
            base,
            ok,
            null),
        new Case(
            "driver without a count has no limit",
            pod("p", "g"),
            List.of(pod("q", "a", "b")),
            base,
            ok,
            null),
        new Case(
            "no CSINode, no limit",
            pod("p", "c"),
            List.of(pod("q", "a", "b")),
            objs(
                csiClaim("a", EBS, "vol-a"),
                csiClaim("b", EBS, "vol-b"),
                csiClaim("c", EBS, "vol-c")),
            ok,
            null),
        new Case(
            "two new volumes over the limit",
            pod("p", "b", "c"),
            List.of(pod("q", "a")),
            base,
            no,
            max),
        new Case(
            "unbound claim counts under its class's provisioner",
            pod("p", "u"),
            List.of(pod("q", "a", "b")),
            objs(
                base,
                List.of(
                    MakePvc.named("u").storageClass("ebs").obj(),
                    MakeStorage.storageClass("ebs", EBS, "WaitForFirstConsumer"))),
            no,
            max),
        new Case(
            "unbound claim without class is not counted",
            pod("p", "u"),
            List.of(pod("q", "a", "b")),
            objs(base, List.of(MakePvc.named("u").obj())),
            ok,
            null),
        new Case(
            "ephemeral volume counts",
            MakePod.named("e").ephemeral("scratch", "ebs").obj(),
            List.of(pod("q", "a", "b")),
            objs(
                base,
                List.of(
                    MakePvc.named("e-scratch")
                        .storageClass("ebs")
                        .ownedBy(MakePod.named("e").obj())
                        .obj(),
                    MakeStorage.storageClass("ebs", EBS, "WaitForFirstConsumer"))),
            no,
            max),
        new Case(
            "ephemeral claim of another pod",
            MakePod.named("e").ephemeral("scratch", "ebs").obj(),
            List.of(),
            objs(base, List.of(MakePvc.named("e-scratch").storageClass("ebs").obj())),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "PVC default/e-scratch was not created for pod default/e (pod is not owner)"),
        new Case(
            "missing claim",
            pod("p", "nope"),
            List.of(),
            base,
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "looking up PVC default/nope: persistentvolumeclaim \"nope\" not found"),
        new Case(
            "placed pod with a missing claim is not counted",
            pod("p", "c"),
            List.of(pod("q", "a", "nope")),
            base,
            ok,
            null),
        new Case(
            "non-CSI PV is not counted",
            pod("p", "h"),
            List.of(pod("q", "a", "b")),
            objs(
                base,
                List.of(MakePvc.named("h").boundTo("pv-h").obj(), MakePv.named("pv-h").obj())),
            ok,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void preFilterThenFilter(Case c) {
    FakeHandle handle = new FakeHandle().withObjects(c.objects().toArray(HasMetadata[]::new));
    NodeVolumeLimitsPlugin plugin = new NodeVolumeLimitsPlugin(handle);
    NodeInfo node = NodeInfo.of(MakeNode.named("n1").obj());
    for (Pod p : c.onNode()) {
      node = node.withPod(PodInfo.of(p));
    }
    CycleState state = new CycleState();
    PreFilterResult r = plugin.preFilter(state, c.pod(), Snapshot.of(List.of(node)));
    Status s =
        r.status().isSkip()
            ? Status.success()
            : r.status().isSuccess() ? plugin.filter(state, c.pod(), node) : r.status();
    assertThat(s.code()).as(s.toString()).isEqualTo(c.want());
    if (c.reason() != null) {
      assertThat(s.reasons()).containsExactly(c.reason());
    }
  }
}
