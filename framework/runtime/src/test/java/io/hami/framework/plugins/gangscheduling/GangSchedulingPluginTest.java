package io.hami.framework.plugins.gangscheduling;

import static io.hami.framework.plugins.helper.PodGroups.MIN_AVAILABLE_ANNOTATION;
import static io.hami.framework.plugins.helper.PodGroups.NAME_ANNOTATION;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PodGroup;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GangSchedulingPluginTest {

  /** A pod held at Permit, as the runtime keeps it; records who allowed or rejected it. */
  static final class FakeWaitingPod implements WaitingPod {
    final Pod pod;
    final List<String> allowedBy = new ArrayList<>();
    @Nullable String rejection;

    FakeWaitingPod(Pod pod) {
      this.pod = pod;
    }

    @Override
    public Pod pod() {
      return pod;
    }

    @Override
    public String nodeName() {
      return "n1";
    }

    @Override
    public Set<String> pendingPlugins() {
      return allowedBy.isEmpty() ? Set.of(GangSchedulingPlugin.NAME) : Set.of();
    }

    @Override
    public void allow(String pluginName) {
      allowedBy.add(pluginName);
    }

    @Override
    public void reject(String pluginName, String reason) {
      rejection = pluginName + ": " + reason;
    }
  }

  /** A plugin over a fake handle, with the cycle states of the pods it placed. */
  static final class Fixture {
    final FakeHandle handle = new FakeHandle();
    final GangSchedulingPlugin plugin;
    final Map<String, CycleState> states = new HashMap<>();
    final Map<String, FakeWaitingPod> waiting = new HashMap<>();

    Fixture(PodGroup... groups) {
      handle.withObjects(groups);
      plugin = GangSchedulingPlugin.create(GangSchedulingArgs.defaults(), handle);
    }

    Fixture add(Pod... pods) {
      for (Pod p : pods) {
        handle.firePodAdd(p);
      }
      return this;
    }

    Status preFilter(Pod p) {
      CycleState s = new CycleState();
      states.put(uid(p), s);
      return plugin.preFilter(s, p, Snapshot.of(List.of())).status();
    }

    /** PreFilter, Reserve and Permit, as a cycle that found a node; a wait is registered. */
    PermitResult place(Pod p) {
      assertThat(preFilter(p).isSuccess()).as("PreFilter of %s", name(p)).isTrue();
      CycleState s = states.get(uid(p));
      assertThat(plugin.reserve(s, p, "n1").isSuccess()).isTrue();
      FakeWaitingPod w = new FakeWaitingPod(p);
      handle.putWaitingPod(uid(p), w);
      waiting.put(name(p), w);
      return plugin.permit(s, p, "n1");
    }

    /** The runtime's answer to a rejection or timeout: Unreserve. */
    void unreserve(Pod p) {
      plugin.unreserve(Objects.requireNonNull(states.get(uid(p))), p, "n1");
    }

    FakeWaitingPod waiting(String name) {
      return Objects.requireNonNull(waiting.get(name));
    }
  }

  static String uid(Pod p) {
    return p.getMetadata().getUid();
  }

  static String name(Pod p) {
    return p.getMetadata().getName();
  }

  static Pod member(String name, String group) {
    return MakePod.named(name).podGroup(group).obj();
  }

  static Pod annotated(String name, String group, String minAvailable) {
    return MakePod.named(name)
        .annotation(NAME_ANNOTATION, group)
        .annotation(MIN_AVAILABLE_ANNOTATION, minAvailable)
        .obj();
  }

  // PreEnqueue

  record EnqueueCase(
      String name, List<PodGroup> groups, List<Pod> others, Pod pod, Code want, String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<EnqueueCase> preEnqueueCases() {
    PodGroup gang3 = PodGroup.gang("default", "g", 3);
    return Stream.of(
        new EnqueueCase(
            "a pod without group",
            List.of(),
            List.of(),
            MakePod.named("p").obj(),
            Code.SUCCESS,
            ""),
        new EnqueueCase(
            "its PodGroup does not exist yet",
            List.of(),
            List.of(),
            member("p", "g"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for pods's pod group \"g\" to appear in scheduling queue"),
        new EnqueueCase(
            "a basic PodGroup",
            List.of(PodGroup.basic("default", "g")),
            List.of(),
            member("p", "g"),
            Code.SUCCESS,
            ""),
        new EnqueueCase(
            "fewer than minCount members",
            List.of(gang3),
            List.of(member("a", "g")),
            member("p", "g"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue"),
        new EnqueueCase(
            "minCount members, the pod included",
            List.of(gang3),
            List.of(member("a", "g"), member("b", "g")),
            member("p", "g"),
            Code.SUCCESS,
            ""),
        new EnqueueCase(
            "members of another namespace do not count",
            List.of(gang3),
            List.of(MakePod.named("a").namespace("other").podGroup("g").obj(), member("b", "g")),
            member("p", "g"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue"),
        new EnqueueCase(
            "a terminal member does not count",
            List.of(gang3),
            List.of(MakePod.named("a").podGroup("g").phase("Succeeded").obj(), member("b", "g")),
            member("p", "g"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue"),
        new EnqueueCase(
            "annotation group below min-available",
            List.of(),
            List.of(annotated("a", "g", "3")),
            annotated("p", "g", "3"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue"),
        new EnqueueCase(
            "annotation group at min-available",
            List.of(),
            List.of(annotated("a", "g", "2")),
            annotated("p", "g", "2"),
            Code.SUCCESS,
            ""),
        new EnqueueCase(
            "a malformed annotation passes, to be refused with a message",
            List.of(),
            List.of(),
            annotated("p", "g", "many"),
            Code.SUCCESS,
            ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("preEnqueueCases")
  void preEnqueue(EnqueueCase c) {
    Fixture f = new Fixture(c.groups().toArray(PodGroup[]::new));
    f.add(c.others().toArray(Pod[]::new));
    Status s = f.plugin.preEnqueue(c.pod());
    assertThat(s.code()).isEqualTo(c.want());
    if (!c.reason().isEmpty()) {
      assertThat(s.message()).isEqualTo(c.reason());
    }
  }

  @Test
  void memberAdd_thatCompletesTheQuorum_activatesTheHeldBackMembers() {
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3));
    f.add(member("a", "g"), member("b", "g"));
    assertThat(f.handle.activated()).isEmpty();
    f.add(member("c", "g"));
    assertThat(f.handle.activated())
        .extracting(GangSchedulingPluginTest::name)
        .containsExactlyInAnyOrder("a", "b");
  }

  // Malformed input

  record RefusalCase(String name, List<PodGroup> groups, Pod pod, String want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static PodGroup withSpec(String field, Object value) {
    PodGroup g = PodGroup.gang("default", "g", 1);
    Objects.requireNonNull(g.getSpec()).setOther(field, value);
    return g;
  }

  static PodGroup gangWith(Consumer<PodGroup.SchedulingPolicy> edit) {
    PodGroup g = PodGroup.gang("default", "g", 1);
    edit.accept(Objects.requireNonNull(Objects.requireNonNull(g.getSpec()).getSchedulingPolicy()));
    return g;
  }

  static Stream<RefusalCase> refusalCases() {
    Pod both = MakePod.named("p").podGroup("g").annotation(NAME_ANNOTATION, "g").obj();
    PodGroup prio = PodGroup.gang("default", "g", 1);
    Objects.requireNonNull(prio.getSpec()).setPriority(7);
    return Stream.of(
        new RefusalCase(
            "min-available not a number",
            List.of(),
            annotated("p", "g", "abc"),
            "annotation pod-group.scheduling.hami.io/min-available=\"abc\" is not a positive integer"),
        new RefusalCase(
            "min-available zero",
            List.of(),
            annotated("p", "g", "0"),
            "annotation pod-group.scheduling.hami.io/min-available=\"0\" is not a positive integer"),
        new RefusalCase(
            "min-available negative",
            List.of(),
            annotated("p", "g", "-2"),
            "annotation pod-group.scheduling.hami.io/min-available=\"-2\" is not a positive integer"),
        new RefusalCase(
            "name without min-available",
            List.of(),
            MakePod.named("p").annotation(NAME_ANNOTATION, "g").obj(),
            "annotation pod-group.scheduling.hami.io/name=\"g\" needs annotation"
                + " pod-group.scheduling.hami.io/min-available (a positive integer)"),
        new RefusalCase(
            "min-available without name",
            List.of(),
            MakePod.named("p").annotation(MIN_AVAILABLE_ANNOTATION, "2").obj(),
            "annotation pod-group.scheduling.hami.io/min-available=\"2\" needs annotation"
                + " pod-group.scheduling.hami.io/name"),
        new RefusalCase(
            "both the spec and the annotation",
            List.of(PodGroup.gang("default", "g", 1)),
            both,
            "the pod sets both spec.schedulingGroup and the annotation"
                + " pod-group.scheduling.hami.io/name: name its pod group one way only"),
        new RefusalCase(
            "topology constraints",
            List.of(
                withSpec(
                    "schedulingConstraints", Map.of("topology", List.of(Map.of("key", "zone"))))),
            member("p", "g"),
            "PodGroup default/g: spec.schedulingConstraints.topology is not supported by this"
                + " scheduler"),
        new RefusalCase(
            "group resource claims",
            List.of(withSpec("resourceClaims", List.of(Map.of("name", "c")))),
            member("p", "g"),
            "PodGroup default/g: spec.resourceClaims is not supported by this scheduler"),
        new RefusalCase(
            "disruption of the whole group",
            List.of(withSpec("disruptionMode", "PodGroup")),
            member("p", "g"),
            "PodGroup default/g: spec.disruptionMode=PodGroup is not supported by this scheduler"),
        new RefusalCase(
            "a group priority other than the pod's",
            List.of(prio),
            member("p", "g"),
            "PodGroup default/g: spec.priority=7 differs from the pod's priority 0; a group"
                + " priority is not supported by this scheduler"),
        new RefusalCase(
            "basic and gang",
            List.of(gangWith(p -> p.setBasic(Map.of()))),
            member("p", "g"),
            "PodGroup default/g: spec.schedulingPolicy sets both basic and gang; set one"),
        new RefusalCase(
            "neither basic nor gang",
            List.of(gangWith(p -> p.setGang(null))),
            member("p", "g"),
            "PodGroup default/g: spec.schedulingPolicy sets neither basic nor gang; set one"),
        new RefusalCase(
            "minCount zero",
            List.of(PodGroup.gang("default", "g", 0)),
            member("p", "g"),
            "PodGroup default/g: spec.schedulingPolicy.gang.minCount=0 must be a positive integer"),
        new RefusalCase(
            "an unknown policy",
            List.of(gangWith(p -> p.setOther("elastic", Map.of("max", 3)))),
            member("p", "g"),
            "PodGroup default/g: spec.schedulingPolicy.elastic is not supported by this scheduler"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusalCases")
  void preFilter_refusesMalformedGroupsNamingTheField(RefusalCase c) {
    Fixture f = new Fixture(c.groups().toArray(PodGroup[]::new));
    Status s = f.preFilter(c.pod());
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).isEqualTo(c.want());
  }

  @Test
  void preFilter_acceptsWhatHasNoSchedulingEffect() {
    PodGroup g = PodGroup.gang("default", "g", 1);
    Objects.requireNonNull(g.getSpec()).setOther("disruptionMode", "Pod");
    g.getSpec().setOther("priorityClassName", "batch");
    g.getSpec().setOther("podGroupTemplateRef", Map.of("workload", Map.of("workloadName", "w")));
    g.getSpec().setPriority(0);
    assertThat(new Fixture(g).preFilter(member("p", "g")).isSuccess()).isTrue();
  }

  @Test
  void args_permitWaitingTimeMustBePositive() {
    FieldErrors errors = FieldErrors.at("args");
    new GangSchedulingArgs(0).validate(errors);
    assertThat(errors.messages()).singleElement().asString().contains("permitWaitingTimeSeconds");
    FieldErrors ok = FieldErrors.at("args");
    GangSchedulingArgs.defaults().validate(ok);
    assertThat(ok.isEmpty()).isTrue();
    assertThat(GangSchedulingArgs.defaults().permitWaitingTime()).isEqualTo(Duration.ofMinutes(5));
  }

  // Permit

  @Test
  void permit_waitsUntilMinCountMembersHaveAPlace_thenAllowsThemAll() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Pod c = member("c", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, c);

    int before = f.handle.activated().size();
    PermitResult ra = f.place(a);
    assertThat(ra.status().code()).isEqualTo(Code.WAIT);
    assertThat(ra.timeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(f.handle.activated().subList(before, f.handle.activated().size()))
        .extracting(GangSchedulingPluginTest::name)
        .containsExactlyInAnyOrder("b", "c");
    assertThat(f.place(b).status().code()).isEqualTo(Code.WAIT);

    assertThat(f.place(c).status().isSuccess()).isTrue();
    assertThat(f.waiting("a").allowedBy).containsExactly(GangSchedulingPlugin.NAME);
    assertThat(f.waiting("b").allowedBy).containsExactly(GangSchedulingPlugin.NAME);
  }

  @Test
  void permit_countsBoundMembers() {
    Pod a = MakePod.named("a").podGroup("g").nodeName("n2").obj();
    Pod b = member("b", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 2)).add(a, b);
    assertThat(f.place(b).status().isSuccess()).isTrue();
  }

  @Test
  void permit_allowsPodsWithoutGroupOrWithABasicGroup() {
    Fixture f = new Fixture(PodGroup.basic("default", "g"));
    assertThat(f.place(MakePod.named("p").obj()).status().isSuccess()).isTrue();
    assertThat(f.place(member("q", "g")).status().isSuccess()).isTrue();
  }

  @Test
  void timeout_releasesEveryWaitingMember() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Pod c = member("c", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, c);
    f.place(a);
    f.place(b);

    // a's wait timed out: the runtime unreserves it, and the plugin lets go of b as well.
    f.unreserve(a);
    assertThat(f.waiting("b").rejection)
        .isEqualTo(
            "GangScheduling: gang default/g released: pod default/a of the gang lost its place");
    f.unreserve(b);
    // Nobody blocks the group: the next attempt of any member may wait again.
    assertThat(f.preFilter(c).isSuccess()).isTrue();
  }

  @Test
  void timeout_withAGatedMember_holdsTheGangBackAsAUnit_untilTheGateGoes() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Pod gated = MakePod.named("c").podGroup("g").schedulingGates("hold").obj();
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, gated);
    f.place(a);
    f.place(b);
    f.unreserve(a);
    f.unreserve(b);

    // Two of three members can be scheduled: neither takes a place again, so what they held at
    // Permit stays free for other pods.
    for (Pod p : List.of(a, b)) {
      Status again = f.preFilter(p);
      assertThat(again.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
      assertThat(again.message())
          .isEqualTo(
              "gang default/g waits for minCount pods that can be scheduled: its last Permit"
                  + " wait ended without them");
    }

    // The gate goes: the gang is complete, the parked members are retried and may wait again.
    int before = f.handle.activated().size();
    Pod open = MakePod.named("c").podGroup("g").obj();
    f.handle.firePodUpdate(gated, open);
    assertThat(f.handle.activated().subList(before, f.handle.activated().size()))
        .extracting(GangSchedulingPluginTest::name)
        .containsExactlyInAnyOrder("a", "b");
    assertThat(f.place(a).status().code()).isEqualTo(Code.WAIT);
    assertThat(f.place(b).status().code()).isEqualTo(Code.WAIT);
    assertThat(f.place(open).status().isSuccess()).isTrue();
  }

  @Test
  void heldGang_theUngatedMemberBeingScheduled_countsItselfBeforeItsUpdateIsSeen() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Pod gated = MakePod.named("c").podGroup("g").schedulingGates("hold").obj();
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, gated);
    f.place(a);
    f.place(b);
    f.unreserve(a);
    f.unreserve(b);

    // The queue pops c, ungated, before the plugin's listener sees the update.
    Pod open = MakePod.named("c").podGroup("g").obj();
    assertThat(f.preFilter(open).isSuccess()).isTrue();
    assertThat(f.preFilter(a).isSuccess()).isTrue();
  }

  @Test
  void memberThatFitsNowhere_releasesTheWaitingMembers_andBlocksTheGroupUntilItFits() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Pod c = member("c", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, c);
    f.place(a);
    f.place(b);

    assertThat(f.preFilter(c).isSuccess()).isTrue();
    f.plugin.postFilter(f.states.get(uid(c)), c, Map.of());
    assertThat(f.waiting("a").rejection).contains("pod default/c of the gang does not fit");
    assertThat(f.waiting("b").rejection).contains("pod default/c of the gang does not fit");
    f.unreserve(a);
    f.unreserve(b);

    // The released members do not take places again while c fits nowhere.
    Status again = f.preFilter(a);
    assertThat(again.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(again.message())
        .isEqualTo("waiting for pod default/c of gang default/g to fit before the others");

    // Capacity appeared: c passes Filter, is reserved, and wakes the others at Permit.
    int before = f.handle.activated().size();
    assertThat(f.place(c).status().code()).isEqualTo(Code.WAIT);
    assertThat(f.handle.activated().subList(before, f.handle.activated().size()))
        .extracting(GangSchedulingPluginTest::name)
        .containsExactlyInAnyOrder("a", "b");
    assertThat(f.place(a).status().code()).isEqualTo(Code.WAIT);
    assertThat(f.place(b).status().isSuccess()).isTrue();
    assertThat(f.waiting("c").allowedBy).containsExactly(GangSchedulingPlugin.NAME);
  }

  @Test
  void failureBetweenReserveAndPermit_blocksTheGroupAndReleasesTheOthers() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 3)).add(a, b, member("c", "g"));
    f.place(a);
    assertThat(f.preFilter(b).isSuccess()).isTrue();
    f.plugin.reserve(f.states.get(uid(b)), b, "n1");
    // Another Reserve plugin refused b: the runtime unreserves it before Permit.
    f.unreserve(b);
    assertThat(f.waiting("a").rejection).contains("pod default/b of the gang lost its place");
    assertThat(f.preFilter(a).message()).contains("waiting for pod default/b");
  }

  @Test
  void bindingFailureAfterTheQuorum_releasesNobody() {
    Pod a = member("a", "g");
    Pod b = member("b", "g");
    Fixture f = new Fixture(PodGroup.gang("default", "g", 2)).add(a, b);
    f.place(a);
    f.place(b);
    f.unreserve(b);
    assertThat(f.waiting("a").rejection).isNull();
  }

  // Hints

  @Test
  void hints_queueOnlyForTheMembersOwnGroup() {
    Fixture f = new Fixture();
    var regs = f.plugin.eventsToRegister();
    Pod p = member("p", "g");
    assertThat(Objects.requireNonNull(regs.get(0).hint()).hint(p, null, member("q", "g")))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(Objects.requireNonNull(regs.get(0).hint()).hint(p, null, member("q", "h")))
        .isEqualTo(QueueingHint.SKIP);
    assertThat(
            Objects.requireNonNull(regs.get(1).hint())
                .hint(p, null, PodGroup.gang("default", "g", 2)))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(
            Objects.requireNonNull(regs.get(1).hint())
                .hint(p, null, PodGroup.gang("other", "g", 2)))
        .isEqualTo(QueueingHint.SKIP);
  }
}
