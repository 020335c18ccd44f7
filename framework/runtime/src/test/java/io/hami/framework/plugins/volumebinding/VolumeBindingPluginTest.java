package io.hami.framework.plugins.volumebinding;

import static io.hami.framework.testing.MakeStorage.IMMEDIATE;
import static io.hami.framework.testing.MakeStorage.NO_PROVISIONER;
import static io.hami.framework.testing.MakeStorage.WAIT_FOR_FIRST_CONSUMER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.plugins.helper.Volumes;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import io.hami.framework.testing.MakePv;
import io.hami.framework.testing.MakePvc;
import io.hami.framework.testing.MakeStorage;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VolumeBindingPluginTest {
  private static final String HOST = "kubernetes.io/hostname";
  private static final NodeInfo N1 =
      NodeInfo.of(MakeNode.named("n1").label(HOST, "n1").label("zone", "a").obj());

  private static final HasMetadata WFFC_LOCAL =
      MakeStorage.storageClass("local", NO_PROVISIONER, WAIT_FOR_FIRST_CONSUMER);
  private static final HasMetadata WFFC_CSI =
      MakeStorage.storageClass("csi", "ebs.csi.aws.com", WAIT_FOR_FIRST_CONSUMER);
  private static final HasMetadata WFFC_CSI_ZONE_B =
      MakeStorage.storageClass("csi-b", "ebs.csi.aws.com", WAIT_FOR_FIRST_CONSUMER, "zone", "b");
  private static final HasMetadata IMMEDIATE_CSI =
      MakeStorage.storageClass("fast", "ebs.csi.aws.com", IMMEDIATE);

  private static final Pod POD = MakePod.named("p").pvc("data", "data").obj();

  private static MakePvc local() {
    return MakePvc.named("data").storageClass("local").request("10Gi");
  }

  private static MakePv localPv(String name) {
    return MakePv.named(name).storageClass("local").capacity("10Gi").nodeAffinity(HOST, "n1");
  }

  record Case(String name, Pod pod, List<HasMetadata> objects, Code want, @Nullable String reason) {
    Case(String name, List<HasMetadata> objects, Code want, @Nullable String reason) {
      this(name, POD, objects, want, reason);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    Code ok = Code.SUCCESS;
    Code never = Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
    Pod ephemeralPod = MakePod.named("e").ephemeral("scratch", "csi").obj();
    PersistentVolumeClaim bound = MakePvc.named("data").boundTo("pv1").obj();
    return Stream.of(
        new Case("pod without claims", MakePod.named("q").obj(), List.of(), ok, null),
        new Case("missing claim", List.of(), never, "persistentvolumeclaim \"data\" not found"),
        new Case(
            "claim being deleted",
            List.of(local().deleting().obj(), WFFC_LOCAL),
            never,
            "persistentvolumeclaim \"data\" is being deleted"),
        new Case(
            "lost claim",
            List.of(
                new PersistentVolumeClaimBuilder(local().volumeName("gone").obj())
                    .editStatus()
                    .withPhase("Lost")
                    .endStatus()
                    .build()),
            never,
            "persistentvolumeclaim \"data\" bound to non-existent persistentvolume \"gone\""),
        new Case(
            "ephemeral claim not yet created",
            ephemeralPod,
            List.of(WFFC_CSI),
            never,
            "waiting for ephemeral volume controller to create the persistentvolumeclaim"
                + " \"e-scratch\""),
        new Case(
            "ephemeral claim of another pod",
            ephemeralPod,
            List.of(MakePvc.named("e-scratch").storageClass("csi").obj(), WFFC_CSI),
            never,
            "PVC default/e-scratch was not created for pod default/e (pod is not owner)"),
        new Case(
            "ephemeral claim owned by the pod, provisioned",
            ephemeralPod,
            List.of(
                MakePvc.named("e-scratch").storageClass("csi").ownedBy(ephemeralPod).obj(),
                WFFC_CSI),
            ok,
            null),
        new Case(
            "unbound claim of an Immediate class",
            List.of(MakePvc.named("data").storageClass("fast").obj(), IMMEDIATE_CSI),
            never,
            VolumeBindingPlugin.REASON_UNBOUND_IMMEDIATE),
        new Case(
            "unbound claim without class",
            List.of(MakePvc.named("data").obj()),
            never,
            VolumeBindingPlugin.REASON_UNBOUND_IMMEDIATE),
        new Case(
            "unbound claim of a missing class",
            List.of(local().obj()),
            never,
            VolumeBindingPlugin.REASON_UNBOUND_IMMEDIATE),
        new Case(
            "pre-bound claim waits for the PV controller",
            List.of(local().volumeName("pv1").obj(), WFFC_LOCAL, localPv("pv1").obj()),
            never,
            VolumeBindingPlugin.REASON_UNBOUND_IMMEDIATE),
        new Case(
            "bound claim, PV on this node",
            List.of(bound, MakePv.named("pv1").nodeAffinity(HOST, "n1").boundTo(bound).obj()),
            ok,
            null),
        new Case(
            "bound claim, PV without node affinity",
            List.of(bound, MakePv.named("pv1").boundTo(bound).obj()),
            ok,
            null),
        new Case(
            "bound claim, PV on another node",
            List.of(bound, MakePv.named("pv1").nodeAffinity(HOST, "n2").boundTo(bound).obj()),
            never,
            VolumeBindingPlugin.REASON_NODE_CONFLICT),
        new Case(
            "bound claim, PV missing",
            List.of(bound),
            never,
            VolumeBindingPlugin.REASON_PV_NOT_EXIST),
        new Case(
            "WFFC, local PV on this node",
            List.of(local().obj(), WFFC_LOCAL, localPv("pv1").obj()),
            ok,
            null),
        new Case(
            "WFFC, local PV on another node",
            List.of(
                local().obj(),
                WFFC_LOCAL,
                MakePv.named("pv1")
                    .storageClass("local")
                    .capacity("10Gi")
                    .nodeAffinity(HOST, "n2")
                    .obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV too small",
            List.of(
                local().obj(),
                WFFC_LOCAL,
                MakePv.named("pv1").storageClass("local").capacity("5Gi").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV of other access modes",
            List.of(local().accessModes("ReadWriteMany").obj(), WFFC_LOCAL, localPv("pv1").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV of other volume mode",
            List.of(local().volumeMode("Block").obj(), WFFC_LOCAL, localPv("pv1").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, selector matches",
            List.of(
                local().selector("tier", "gold").obj(),
                WFFC_LOCAL,
                localPv("pv1").label("tier", "gold").obj()),
            ok,
            null),
        new Case(
            "WFFC, selector does not match",
            List.of(
                local().selector("tier", "gold").obj(),
                WFFC_LOCAL,
                localPv("pv1").label("tier", "bronze").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV of another class",
            List.of(
                local().obj(),
                WFFC_LOCAL,
                MakePv.named("pv1").storageClass("other").capacity("10Gi").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV released",
            List.of(local().obj(), WFFC_LOCAL, localPv("pv1").phase("Released").obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV being deleted",
            List.of(local().obj(), WFFC_LOCAL, localPv("pv1").deleting().obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV claimed by another claim",
            List.of(
                local().obj(),
                WFFC_LOCAL,
                localPv("pv1").claimRef(MakePvc.named("other").obj()).obj()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, PV pre-bound to this claim",
            List.of(local().obj(), WFFC_LOCAL, localPv("pv1").claimRef(local().obj()).obj()),
            ok,
            null),
        new Case(
            "WFFC, PV with a malformed capacity is skipped",
            List.of(
                local().obj(),
                WFFC_LOCAL,
                new PersistentVolumeBuilder(localPv("pv1").obj())
                    .editSpec()
                    .addToCapacity("storage", new Quantity("lots", null))
                    .endSpec()
                    .build()),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, dynamic provisioning",
            List.of(MakePvc.named("data").storageClass("csi").request("1Gi").obj(), WFFC_CSI),
            ok,
            null),
        new Case(
            "WFFC, provisioning outside the allowed topologies",
            List.of(MakePvc.named("data").storageClass("csi-b").obj(), WFFC_CSI_ZONE_B),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "WFFC, provisioning already selected this node",
            List.of(
                MakePvc.named("data")
                    .storageClass("csi")
                    .annotation(Volumes.ANN_SELECTED_NODE, "n1")
                    .obj(),
                WFFC_CSI),
            ok,
            null),
        new Case(
            "WFFC, provisioning selected another node",
            List.of(
                MakePvc.named("data")
                    .storageClass("csi")
                    .annotation(Volumes.ANN_SELECTED_NODE, "n2")
                    .obj(),
                WFFC_CSI),
            never,
            VolumeBindingPlugin.REASON_BIND_CONFLICT),
        new Case(
            "every reason at once",
            MakePod.named("p").pvc("a", "data").pvc("b", "bound").pvc("c", "gone").obj(),
            List.of(
                local().obj(),
                WFFC_LOCAL,
                MakePvc.named("bound").boundTo("pvb").obj(),
                MakePv.named("pvb").nodeAffinity(HOST, "n9").obj(),
                MakePvc.named("gone").boundTo("nothing").obj()),
            never,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void preFilterThenFilter(Case c) {
    FakeHandle handle = new FakeHandle().withObjects(c.objects().toArray(HasMetadata[]::new));
    VolumeBindingPlugin plugin = plugin(handle, 0);
    Status s = run(plugin, new CycleState(), c.pod(), N1);
    assertThat(s.code()).as(s.toString()).isEqualTo(c.want());
    if (c.reason() != null) {
      assertThat(s.reasons()).containsExactly(c.reason());
    }
  }

  @Test
  void filter_listsEveryReasonInKubesOrder() {
    Case all = cases().filter(c -> c.name().equals("every reason at once")).findFirst().get();
    FakeHandle handle = new FakeHandle().withObjects(all.objects().toArray(HasMetadata[]::new));
    Status s = run(plugin(handle, 0), new CycleState(), all.pod(), N1);
    assertThat(s.reasons())
        .containsExactly(
            VolumeBindingPlugin.REASON_NODE_CONFLICT,
            VolumeBindingPlugin.REASON_BIND_CONFLICT,
            VolumeBindingPlugin.REASON_PV_NOT_EXIST);
  }

  @Test
  void filter_picksTheSmallestFittingVolume_andReservePromisesIt() {
    FakeHandle handle =
        new FakeHandle()
            .withObjects(
                local().obj(),
                WFFC_LOCAL,
                localPv("big").capacity("100Gi").obj(),
                localPv("small").capacity("20Gi").obj(),
                localPv("tiny").capacity("1Gi").obj());
    VolumeBindingPlugin plugin = plugin(handle, 0);
    CycleState state = new CycleState();
    assertThat(run(plugin, state, POD, N1).isSuccess()).isTrue();
    assertThat(plugin.reserve(state, POD, "n1").isSuccess()).isTrue();
    assertThat(plugin.assumedCount()).isEqualTo(1);

    Status bound = plugin.preBind(state, POD, "n1");
    PersistentVolume written = (PersistentVolume) handle.updates().get(0);
    assertThat(written.getMetadata().getName()).isEqualTo("small");
    assertThat(written.getSpec().getClaimRef().getName()).isEqualTo("data");
    assertThat(written.getSpec().getClaimRef().getUid())
        .isEqualTo(local().obj().getMetadata().getUid());
    assertThat(written.getMetadata().getAnnotations())
        .containsEntry(Volumes.ANN_BOUND_BY_CONTROLLER, "yes");
    // Nothing plays the PV controller behind a FakeHandle without a client: the claim stays
    // unbound and PreBind says so at once, naming it.
    assertThat(bound.code()).isEqualTo(Code.ERROR);
    assertThat(bound.message())
        .isEqualTo(
            "binding volumes: PersistentVolumeClaims default/data are not bound and nothing in"
                + " this cluster will bind them");
    plugin.unreserve(state, POD, "n1");
    assertThat(plugin.assumedCount()).isZero();
  }

  @Test
  void reservedVolume_isNotOfferedToAnotherPodInFlight_untilUnreserved() {
    PersistentVolumeClaim other = MakePvc.named("other").storageClass("local").request("1Gi").obj();
    Pod second = MakePod.named("q").pvc("data", "other").obj();
    FakeHandle handle =
        new FakeHandle().withObjects(local().obj(), other, WFFC_LOCAL, localPv("pv1").obj());
    VolumeBindingPlugin plugin = plugin(handle, 0);
    CycleState first = new CycleState();
    assertThat(run(plugin, first, POD, N1).isSuccess()).isTrue();
    assertThat(plugin.reserve(first, POD, "n1").isSuccess()).isTrue();

    Status s = run(plugin, new CycleState(), second, N1);
    assertThat(s.reasons()).containsExactly(VolumeBindingPlugin.REASON_BIND_CONFLICT);

    plugin.unreserve(first, POD, "n1");
    assertThat(run(plugin, new CycleState(), second, N1).isSuccess()).isTrue();
  }

  @Test
  void twoClaimsOfOnePod_getTwoVolumes() {
    Pod pod = MakePod.named("p").pvc("a", "data").pvc("b", "logs").obj();
    FakeHandle handle =
        new FakeHandle()
            .withObjects(
                local().obj(),
                MakePvc.named("logs").storageClass("local").request("1Gi").obj(),
                WFFC_LOCAL,
                localPv("pv1").obj());
    VolumeBindingPlugin plugin = plugin(handle, 0);
    assertThat(run(plugin, new CycleState(), pod, N1).reasons())
        .containsExactly(VolumeBindingPlugin.REASON_BIND_CONFLICT);
    handle.withObjects(localPv("pv2").obj());
    assertThat(run(plugin, new CycleState(), pod, N1).isSuccess()).isTrue();
  }

  @Test
  void preBind_provisioning_setsTheSelectedNode() {
    PersistentVolumeClaim claim = MakePvc.named("data").storageClass("csi").request("1Gi").obj();
    FakeHandle handle = new FakeHandle().withObjects(claim, WFFC_CSI);
    VolumeBindingPlugin plugin = plugin(handle, 0);
    CycleState state = new CycleState();
    assertThat(run(plugin, state, POD, N1).isSuccess()).isTrue();
    plugin.reserve(state, POD, "n1");
    Status s = plugin.preBind(state, POD, "n1");
    PersistentVolumeClaim written = (PersistentVolumeClaim) handle.updates().get(0);
    assertThat(written.getMetadata().getAnnotations())
        .containsEntry(Volumes.ANN_SELECTED_NODE, "n1");
    assertThat(s.code()).isEqualTo(Code.ERROR);
  }

  @Test
  void preBind_succeedsOnceTheClaimsAreBound() {
    FakeHandle handle =
        new FakeHandle().withObjects(local().obj(), WFFC_LOCAL, localPv("pv1").obj());
    VolumeBindingPlugin plugin = plugin(handle, 0);
    CycleState state = new CycleState();
    run(plugin, state, POD, N1);
    plugin.reserve(state, POD, "n1");
    // The PV controller got there first.
    handle.withObjects(local().boundTo("pv1").obj());
    assertThat(plugin.preBind(state, POD, "n1").isSuccess()).isTrue();
    assertThat(plugin.assumedCount()).isZero();
  }

  @Test
  void preBind_withNothingToBind_succeedsWithoutWrites() {
    PersistentVolumeClaim bound = MakePvc.named("data").boundTo("pv1").obj();
    FakeHandle handle =
        new FakeHandle().withObjects(bound, MakePv.named("pv1").boundTo(bound).obj());
    VolumeBindingPlugin plugin = plugin(handle, 0);
    CycleState state = new CycleState();
    assertThat(run(plugin, state, POD, N1).isSuccess()).isTrue();
    assertThat(plugin.reserve(state, POD, "n1").isSuccess()).isTrue();
    assertThat(plugin.preBind(state, POD, "n1").isSuccess()).isTrue();
    assertThat(handle.updates()).isEmpty();
    // A pod the plugin skipped.
    Pod none = MakePod.named("none").obj();
    assertThat(plugin.reserve(new CycleState(), none, "n1").isSuccess()).isTrue();
    assertThat(plugin.preBind(new CycleState(), none, "n1").isSuccess()).isTrue();
  }

  @Test
  void args_defaultAndValidation() {
    assertThat(VolumeBindingArgs.defaults().bindTimeoutSeconds()).isEqualTo(600);
    FieldErrors ok = FieldErrors.at("args");
    new VolumeBindingArgs(0).validate(ok);
    assertThat(ok.isEmpty()).isTrue();
    FieldErrors bad = FieldErrors.at("args");
    new VolumeBindingArgs(-1).validate(bad);
    assertThat(bad.messages())
        .containsExactly("args.bindTimeoutSeconds: invalid value -1: must not be negative");
  }

  @Test
  void args_fromConfiguration_defaultedAndValidatedWithTheirPath() {
    ConfigLoader loader = new ConfigLoader(BuiltInPlugins.registry());
    String header = "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n";
    SchedulerConfiguration set =
        loader.parse(
            header
                + "- schedulerName: s\n  pluginConfig:\n  - name: VolumeBinding\n"
                + "    args: {}\n",
            "t");
    assertThat(set.profiles().get(0).pluginArgs().get(VolumeBindingPlugin.NAME))
        .isEqualTo(new VolumeBindingArgs(600));
    assertThatThrownBy(
            () ->
                loader.parse(
                    header
                        + "- schedulerName: s\n  pluginConfig:\n  - name: VolumeBinding\n"
                        + "    args: {bindTimeoutSeconds: -5}\n",
                    "bad.yaml"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.errors())
                    .containsExactly(
                        "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: invalid value -5:"
                            + " must not be negative"));
  }

  @Test
  void claimHint_queuesOnlyForTheClaimsOfThePod() {
    assertThat(VolumeBindingPlugin.claimOfPod(POD, null, local().obj()))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(VolumeBindingPlugin.claimOfPod(POD, null, MakePvc.named("other").obj()))
        .isEqualTo(QueueingHint.SKIP);
    assertThat(VolumeBindingPlugin.claimOfPod(POD, null, local().namespace("prod").obj()))
        .isEqualTo(QueueingHint.SKIP);
    Pod ephemeral = MakePod.named("e").ephemeral("scratch", "csi").obj();
    assertThat(VolumeBindingPlugin.claimOfPod(ephemeral, null, MakePvc.named("e-scratch").obj()))
        .isEqualTo(QueueingHint.QUEUE);
  }

  private static VolumeBindingPlugin plugin(FakeHandle handle, long timeoutSeconds) {
    return new VolumeBindingPlugin(
        new VolumeBindingArgs(timeoutSeconds), handle, Duration.ofMillis(1));
  }

  /** PreFilter, then Filter on {@code node} unless PreFilter decided. */
  private static Status run(VolumeBindingPlugin plugin, CycleState state, Pod pod, NodeInfo node) {
    PreFilterResult r = plugin.preFilter(state, pod, Snapshot.of(List.of(node)));
    if (r.status().isSkip()) {
      return Status.success();
    }
    if (!r.status().isSuccess()) {
      return r.status();
    }
    return plugin.filter(state, pod, node);
  }
}
