package io.hami.framework.plugins.podspecsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.AzureFileVolumeSourceBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGroupBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.PreFilterResult;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.QueueingHintFunction;
import io.hami.framework.api.Snapshot;
import io.hami.framework.testing.MakePod;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodSpecSupportPluginTest {

  record Case(String name, Pod pod, List<String> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Volume volume(String name, VolumeBuilder source) {
    return source.withName(name).build();
  }

  static Stream<Case> cases() {
    Pod group = MakePod.named("p").obj();
    group
        .getSpec()
        .setSchedulingGroup(new PodSchedulingGroupBuilder().withPodGroupName("g").build());
    Pod containerClaim = MakePod.named("p").cpu("1").obj();
    containerClaim
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setClaims(List.of(new ResourceClaimBuilder().withName("gpu").build()));
    return Stream.of(
        new Case("an ordinary pod", MakePod.named("p").cpu("1").memory("1Gi").obj(), List.of()),
        new Case(
            "resource claims",
            MakePod.named("p").resourceClaim("gpu", "gpu-claim").obj(),
            List.of("spec.resourceClaims is not supported by this scheduler (DynamicResources)")),
        new Case(
            "a scheduling group",
            group,
            List.of(
                "spec.schedulingGroup is not supported by this profile (GangScheduling): enable"
                    + " the GangScheduling plugin")),
        new Case(
            "a container's resource claims",
            containerClaim,
            List.of(
                "spec.containers[0].resources.claims is not supported by this scheduler"
                    + " (DynamicResources)")),
        new Case(
            "volumes the volume plugins evaluate or that do not matter",
            MakePod.named("p")
                .volume(volume("a", new VolumeBuilder().withNewPersistentVolumeClaim("c", false)))
                .volume(volume("b", new VolumeBuilder().withNewEmptyDir().endEmptyDir()))
                .volume(volume("c", new VolumeBuilder().withNewHostPath("/x", null)))
                .volume(volume("d", new VolumeBuilder().withNewCsi().withDriver("d").endCsi()))
                .volume(volume("e", new VolumeBuilder().withNewNfs().withServer("s").endNfs()))
                .obj(),
            List.of()),
        new Case(
            "an inline volume kube-scheduler counts through CSI migration",
            MakePod.named("p")
                .volume(volume("cfg", new VolumeBuilder().withNewConfigMap().endConfigMap()))
                .volume(
                    volume(
                        "share",
                        new VolumeBuilder()
                            .withAzureFile(
                                new AzureFileVolumeSourceBuilder().withShareName("s").build())))
                .obj(),
            List.of(
                "spec.volumes[1].azureFile is not supported by this scheduler (NodeVolumeLimits)")),
        new Case(
            "every refusal is named",
            MakePod.named("p")
                .resourceClaim("gpu", "c")
                .volume(
                    volume("v", new VolumeBuilder().withNewCinder().withVolumeID("x").endCinder()))
                .obj(),
            List.of(
                "spec.resourceClaims is not supported by this scheduler (DynamicResources)",
                "spec.volumes[0].cinder is not supported by this scheduler (NodeVolumeLimits)")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void preFilter(Case c) {
    PreFilterResult r =
        new PodSpecSupportPlugin().preFilter(new CycleState(), c.pod(), Snapshot.of(List.of()));
    if (c.want().isEmpty()) {
      assertThat(r.status().isSuccess()).isTrue();
    } else {
      assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
      assertThat(r.status().reasons()).containsExactlyElementsOf(c.want());
    }
  }

  @Test
  void schedulingGroup_isAcceptedWhereTheProfileEnablesGangScheduling() {
    Pod p = MakePod.named("p").podGroup("g").obj();
    PodSpecSupportPlugin plugin = new PodSpecSupportPlugin();
    plugin.profileBuilt(Set.of("PrioritySort", "DefaultBinder"));
    assertThat(plugin.preFilter(new CycleState(), p, Snapshot.of(List.of())).status().message())
        .contains("enable the GangScheduling plugin");
    plugin.profileBuilt(Set.of("PrioritySort", "GangScheduling", "DefaultBinder"));
    assertThat(plugin.preFilter(new CycleState(), p, Snapshot.of(List.of())).status().isSuccess())
        .isTrue();
  }

  @Test
  void podWithoutSpecOrWithNullEntries_isNotRefused() {
    Pod p = MakePod.named("p").obj();
    p.getSpec().setVolumes(new ArrayList<>(Arrays.asList((Volume) null)));
    p.getSpec().getContainers().add(null);
    assertThat(PodSpecSupportPlugin.refusals(p)).isEmpty();
    p.setSpec(null);
    assertThat(PodSpecSupportPlugin.refusals(p)).isEmpty();
  }

  @Test
  void hint_queuesWhenThePodNoLongerSetsARefusedField() {
    QueueingHintFunction hint =
        Objects.requireNonNull(new PodSpecSupportPlugin().eventsToRegister().get(0).hint());
    Pod refused = MakePod.named("p").resourceClaim("gpu", "c").obj();
    Pod fixed = MakePod.named("p").obj();
    assertThat(hint.hint(refused, refused, fixed)).isEqualTo(QueueingHint.QUEUE);
    assertThat(hint.hint(refused, refused, refused)).isEqualTo(QueueingHint.SKIP);
    assertThat(hint.hint(refused, null, MakePod.named("other").obj())).isEqualTo(QueueingHint.SKIP);
  }

  /**
   * Every field fabric8 models is classified: implemented by a named plugin, refused, or not
   * influencing scheduling. A fabric8 upgrade that adds a field fails here until the field is
   * classified in {@link PodSpecFields}, by kube-scheduler's reading of it.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("modelTypes")
  void everyModelFieldIsClassified(Class<?> type, Map<String, ?> table) {
    Set<String> fields = jsonFields(type);
    Set<String> unclassified = new TreeSet<>(fields);
    unclassified.removeAll(table.keySet());
    Set<String> stale = new TreeSet<>(table.keySet());
    stale.removeAll(fields);
    assertThat(unclassified)
        .as("fields of %s to classify in PodSpecFields", type.getSimpleName())
        .isEmpty();
    assertThat(stale).as("PodSpecFields entries %s no longer has", type.getSimpleName()).isEmpty();
  }

  static Stream<Arguments> modelTypes() {
    return Stream.of(
        Arguments.of(PodSpec.class, PodSpecFields.POD_SPEC),
        Arguments.of(Container.class, PodSpecFields.CONTAINER),
        Arguments.of(ResourceRequirements.class, PodSpecFields.RESOURCES),
        Arguments.of(Volume.class, PodSpecFields.VOLUME));
  }

  private static Set<String> jsonFields(Class<?> type) {
    Set<String> out = new TreeSet<>();
    for (Field f : type.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) || f.isAnnotationPresent(JsonIgnore.class)) {
        continue;
      }
      JsonProperty p = f.getAnnotation(JsonProperty.class);
      out.add(p != null && !p.value().isEmpty() ? p.value() : f.getName());
    }
    return out;
  }
}
