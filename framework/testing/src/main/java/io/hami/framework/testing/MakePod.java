package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTermBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTermBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A fluent pod fixture: {@code MakePod.named("p").cpu("500m").memory("1Gi").obj()}. Each call to a
 * container-level method applies to the last container added ({@code container(..)}), creating a
 * first container {@code c0} when there is none.
 */
public final class MakePod {
  private final PodBuilder builder;
  private final List<ContainerBuilder> containers = new ArrayList<>();
  private final List<ContainerBuilder> initContainers = new ArrayList<>();
  private @Nullable ContainerBuilder current;
  private final List<NodeSelectorTerm> requiredTerms = new ArrayList<>();
  private final List<PreferredSchedulingTerm> preferredTerms = new ArrayList<>();
  private final List<Toleration> tolerations = new ArrayList<>();
  private final Map<String, String> nodeSelector = new LinkedHashMap<>();
  private final List<TopologySpreadConstraint> spreadConstraints = new ArrayList<>();
  private final List<PodAffinityTerm> podAffinity = new ArrayList<>();
  private final List<PodAffinityTerm> podAntiAffinity = new ArrayList<>();
  private final List<WeightedPodAffinityTerm> preferredPodAffinity = new ArrayList<>();
  private final List<WeightedPodAffinityTerm> preferredPodAntiAffinity = new ArrayList<>();

  private MakePod(String name) {
    builder =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withUid(
                UUID.nameUUIDFromBytes(("default/" + name).getBytes(StandardCharsets.UTF_8))
                    .toString())
            .withResourceVersion("1")
            .withCreationTimestamp("2026-01-01T00:00:00Z")
            .endMetadata()
            .withNewSpec()
            .withSchedulerName("hami-scheduler")
            .endSpec()
            .withNewStatus()
            .withPhase("Pending")
            .endStatus();
    current = null;
  }

  /** Starts a pod in namespace {@code default} with a UID derived from its name. */
  public static MakePod named(String name) {
    return new MakePod(name);
  }

  public MakePod namespace(String ns) {
    builder.editMetadata().withNamespace(ns).endMetadata();
    return this;
  }

  public MakePod uid(String uid) {
    builder.editMetadata().withUid(uid).endMetadata();
    return this;
  }

  public MakePod resourceVersion(String rv) {
    builder.editMetadata().withResourceVersion(rv).endMetadata();
    return this;
  }

  public MakePod creationTimestamp(String rfc3339) {
    builder.editMetadata().withCreationTimestamp(rfc3339).endMetadata();
    return this;
  }

  public MakePod label(String key, String value) {
    builder.editMetadata().addToLabels(key, value).endMetadata();
    return this;
  }

  public MakePod annotation(String key, String value) {
    builder.editMetadata().addToAnnotations(key, value).endMetadata();
    return this;
  }

  public MakePod schedulerName(String name) {
    builder.editSpec().withSchedulerName(name).endSpec();
    return this;
  }

  public MakePod nodeName(String node) {
    builder.editSpec().withNodeName(node).endSpec();
    return this;
  }

  public MakePod priority(int priority) {
    builder.editSpec().withPriority(priority).endSpec();
    return this;
  }

  /** Names the pod's group the Kubernetes v1.36 way: {@code spec.schedulingGroup.podGroupName}. */
  public MakePod podGroup(String podGroupName) {
    builder
        .editSpec()
        .withNewSchedulingGroup()
        .withPodGroupName(podGroupName)
        .endSchedulingGroup()
        .endSpec();
    return this;
  }

  public MakePod phase(String phase) {
    builder.editStatus().withPhase(phase).endStatus();
    return this;
  }

  /** Adds a container named {@code name}; later container-level calls apply to it. */
  public MakePod container(String name) {
    addContainer(name);
    return this;
  }

  private ContainerBuilder addContainer(String name) {
    ContainerBuilder c = new ContainerBuilder().withName(name).withImage("registry.invalid/app:1");
    containers.add(c);
    current = c;
    return c;
  }

  /** Adds an init container; {@code sidecar} makes it restartable (restartPolicy Always). */
  public MakePod initContainer(String name, boolean sidecar) {
    current = new ContainerBuilder().withName(name).withImage("registry.invalid/init:1");
    if (sidecar) {
      current.withRestartPolicy("Always");
    }
    initContainers.add(current);
    return this;
  }

  private ContainerBuilder current() {
    ContainerBuilder c = current;
    return c != null ? c : addContainer("c0");
  }

  /** Sets a request on the current container. */
  public MakePod req(String resource, String quantity) {
    ContainerBuilder c = current();
    c.editOrNewResources().addToRequests(resource, new Quantity(quantity)).endResources();
    return this;
  }

  /** Sets a limit on the current container. */
  public MakePod limit(String resource, String quantity) {
    ContainerBuilder c = current();
    c.editOrNewResources().addToLimits(resource, new Quantity(quantity)).endResources();
    return this;
  }

  public MakePod cpu(String quantity) {
    return req("cpu", quantity);
  }

  public MakePod memory(String quantity) {
    return req("memory", quantity);
  }

  /** Declares a TCP host port on the current container. */
  public MakePod hostPort(int port) {
    return hostPort("TCP", "", port);
  }

  public MakePod hostPort(String protocol, String hostIp, int port) {
    current()
        .addToPorts(
            new ContainerPortBuilder()
                .withContainerPort(port)
                .withHostPort(port)
                .withProtocol(protocol)
                .withHostIP(hostIp.isEmpty() ? null : hostIp)
                .build());
    return this;
  }

  public MakePod overhead(String resource, String quantity) {
    builder.editSpec().addToOverhead(resource, new Quantity(quantity)).endSpec();
    return this;
  }

  /** Sets the image of the current container. */
  public MakePod image(String image) {
    current().withImage(image);
    return this;
  }

  /** Adds scheduling gates ({@code spec.schedulingGates}) with these names. */
  public MakePod schedulingGates(String... names) {
    for (String n : names) {
      builder.editSpec().addNewSchedulingGate().withName(n).endSchedulingGate().endSpec();
    }
    return this;
  }

  /** Adds a pod resource claim ({@code spec.resourceClaims}) naming a ResourceClaim. */
  public MakePod resourceClaim(String name, String claimName) {
    builder
        .editSpec()
        .addNewResourceClaim()
        .withName(name)
        .withResourceClaimName(claimName)
        .endResourceClaim()
        .endSpec();
    return this;
  }

  /** Sets a pod-level request ({@code spec.resources.requests}, PodLevelResources). */
  public MakePod podRequest(String resource, String quantity) {
    builder
        .editSpec()
        .editOrNewResources()
        .addToRequests(resource, new Quantity(quantity))
        .endResources()
        .endSpec();
    return this;
  }

  /** Adds a volume {@code volume} mounting the PersistentVolumeClaim {@code claimName}. */
  public MakePod pvc(String volume, String claimName) {
    return volume(
        new VolumeBuilder()
            .withName(volume)
            .withNewPersistentVolumeClaim()
            .withClaimName(claimName)
            .endPersistentVolumeClaim()
            .build());
  }

  /**
   * Adds a generic ephemeral volume {@code volume}; its claim is {@code <pod>-<volume>}, made by
   * the ephemeral volume controller with the pod as owner ({@link MakePvc#ownedBy}).
   */
  public MakePod ephemeral(String volume, String storageClass) {
    return volume(
        new VolumeBuilder()
            .withName(volume)
            .withNewEphemeral()
            .withNewVolumeClaimTemplate()
            .withNewSpec()
            .withStorageClassName(storageClass)
            .withAccessModes("ReadWriteOnce")
            .endSpec()
            .endVolumeClaimTemplate()
            .endEphemeral()
            .build());
  }

  /** Adds a volume as given (inline GCE PD, EBS, RBD, iSCSI, CSI...). */
  public MakePod volume(Volume v) {
    builder.editSpec().addToVolumes(v).endSpec();
    return this;
  }

  public MakePod nodeSelector(String key, String value) {
    nodeSelector.put(key, value);
    return this;
  }

  /** Adds a toleration; {@code operator} is Equal or Exists, {@code effect} may be empty. */
  public MakePod toleration(String key, String operator, String value, String effect) {
    tolerations.add(
        new TolerationBuilder()
            .withKey(key.isEmpty() ? null : key)
            .withOperator(operator)
            .withValue(value.isEmpty() ? null : value)
            .withEffect(effect.isEmpty() ? null : effect)
            .build());
    return this;
  }

  /** Adds a required node-affinity term with one expression (terms are ORed). */
  public MakePod requiredNodeAffinity(String key, String operator, String... values) {
    requiredTerms.add(
        new NodeSelectorTermBuilder().withMatchExpressions(expr(key, operator, values)).build());
    return this;
  }

  /** Adds a preferred node-affinity term with one expression. */
  public MakePod preferredNodeAffinity(int weight, String key, String operator, String... values) {
    preferredTerms.add(
        new PreferredSchedulingTermBuilder()
            .withWeight(weight)
            .withNewPreference()
            .withMatchExpressions(expr(key, operator, values))
            .endPreference()
            .build());
    return this;
  }

  /**
   * Adds a topology spread constraint whose labelSelector has the given {@code key, value, ...}
   * matchLabels (none: an empty selector). {@code whenUnsatisfiable} is DoNotSchedule or
   * ScheduleAnyway.
   */
  public MakePod topologySpread(
      int maxSkew, String topologyKey, String whenUnsatisfiable, String... matchLabels) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i + 1 < matchLabels.length; i += 2) {
      labels.put(matchLabels[i], matchLabels[i + 1]);
    }
    return topologySpread(
        new TopologySpreadConstraintBuilder()
            .withMaxSkew(maxSkew)
            .withTopologyKey(topologyKey)
            .withWhenUnsatisfiable(whenUnsatisfiable)
            .withNewLabelSelector()
            .withMatchLabels(labels)
            .endLabelSelector()
            .build());
  }

  /** Adds a topology spread constraint as given (minDomains, policies, matchLabelKeys...). */
  public MakePod topologySpread(TopologySpreadConstraint constraint) {
    spreadConstraints.add(constraint);
    return this;
  }

  /** Adds a controller owner reference ({@code apps/v1 ReplicaSet rs1}, say). */
  public MakePod controlledBy(String apiVersion, String kind, String name) {
    builder
        .editMetadata()
        .addNewOwnerReference()
        .withApiVersion(apiVersion)
        .withKind(kind)
        .withName(name)
        .withUid("owner-" + name)
        .withController(true)
        .endOwnerReference()
        .endMetadata();
    return this;
  }

  /** Marks the pod as terminating (a deletion timestamp). */
  public MakePod terminating() {
    builder.editMetadata().withDeletionTimestamp("2026-01-01T00:01:00Z").endMetadata();
    return this;
  }

  /**
   * A pod (anti-)affinity term over {@code topologyKey} selecting pods labelled {@code key=value};
   * refine it (namespaces, namespaceSelector, matchLabelKeys) before {@code build()}.
   */
  public static PodAffinityTermBuilder podAffinityTerm(
      String topologyKey, String key, String value) {
    return new PodAffinityTermBuilder()
        .withTopologyKey(topologyKey)
        .withNewLabelSelector()
        .addToMatchLabels(key, value)
        .endLabelSelector();
  }

  /** Adds a required pod-affinity term to pods labelled {@code key=value} (terms are ANDed). */
  public MakePod podAffinity(String topologyKey, String key, String value) {
    return podAffinity(podAffinityTerm(topologyKey, key, value).build());
  }

  public MakePod podAffinity(PodAffinityTerm term) {
    podAffinity.add(term);
    return this;
  }

  /** Adds a required pod-anti-affinity term against pods labelled {@code key=value}. */
  public MakePod podAntiAffinity(String topologyKey, String key, String value) {
    return podAntiAffinity(podAffinityTerm(topologyKey, key, value).build());
  }

  public MakePod podAntiAffinity(PodAffinityTerm term) {
    podAntiAffinity.add(term);
    return this;
  }

  /** Adds a preferred pod-affinity term to pods labelled {@code key=value}. */
  public MakePod preferredPodAffinity(int weight, String topologyKey, String key, String value) {
    return preferredPodAffinity(weight, podAffinityTerm(topologyKey, key, value).build());
  }

  public MakePod preferredPodAffinity(int weight, PodAffinityTerm term) {
    preferredPodAffinity.add(weighted(weight, term));
    return this;
  }

  /** Adds a preferred pod-anti-affinity term against pods labelled {@code key=value}. */
  public MakePod preferredPodAntiAffinity(
      int weight, String topologyKey, String key, String value) {
    return preferredPodAntiAffinity(weight, podAffinityTerm(topologyKey, key, value).build());
  }

  public MakePod preferredPodAntiAffinity(int weight, PodAffinityTerm term) {
    preferredPodAntiAffinity.add(weighted(weight, term));
    return this;
  }

  private static WeightedPodAffinityTerm weighted(int weight, PodAffinityTerm term) {
    return new WeightedPodAffinityTermBuilder()
        .withWeight(weight)
        .withPodAffinityTerm(term)
        .build();
  }

  private static NodeSelectorRequirement expr(String key, String operator, String... values) {
    return new NodeSelectorRequirementBuilder()
        .withKey(key)
        .withOperator(operator)
        .withValues(values.length == 0 ? null : List.of(values))
        .build();
  }

  /** Builds a new Pod object; the builder may be reused. */
  public Pod obj() {
    List<Container> cs = new ArrayList<>();
    if (containers.isEmpty()) {
      cs.add(new ContainerBuilder().withName("c0").withImage("registry.invalid/app:1").build());
    }
    for (ContainerBuilder c : containers) {
      cs.add(c.build());
    }
    List<Container> ics = new ArrayList<>();
    for (ContainerBuilder c : initContainers) {
      ics.add(c.build());
    }
    Pod pod = builder.build();
    pod.getSpec().setContainers(cs);
    pod.getSpec().setInitContainers(ics.isEmpty() ? null : ics);
    if (!tolerations.isEmpty()) {
      pod.getSpec().setTolerations(new ArrayList<>(tolerations));
    }
    if (!spreadConstraints.isEmpty()) {
      pod.getSpec().setTopologySpreadConstraints(new ArrayList<>(spreadConstraints));
    }
    if (!nodeSelector.isEmpty()) {
      pod.getSpec().setNodeSelector(new LinkedHashMap<>(nodeSelector));
    }
    var affinity = new AffinityBuilder();
    boolean any = false;
    if (!requiredTerms.isEmpty() || !preferredTerms.isEmpty()) {
      var na = new NodeAffinityBuilder();
      if (!requiredTerms.isEmpty()) {
        na.withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .withNodeSelectorTerms(new ArrayList<>(requiredTerms))
            .endRequiredDuringSchedulingIgnoredDuringExecution();
      }
      if (!preferredTerms.isEmpty()) {
        na.withPreferredDuringSchedulingIgnoredDuringExecution(new ArrayList<>(preferredTerms));
      }
      affinity.withNodeAffinity(na.build());
      any = true;
    }
    if (!podAffinity.isEmpty() || !preferredPodAffinity.isEmpty()) {
      affinity.withPodAffinity(
          new PodAffinityBuilder()
              .withRequiredDuringSchedulingIgnoredDuringExecution(new ArrayList<>(podAffinity))
              .withPreferredDuringSchedulingIgnoredDuringExecution(
                  new ArrayList<>(preferredPodAffinity))
              .build());
      any = true;
    }
    if (!podAntiAffinity.isEmpty() || !preferredPodAntiAffinity.isEmpty()) {
      affinity.withPodAntiAffinity(
          new PodAntiAffinityBuilder()
              .withRequiredDuringSchedulingIgnoredDuringExecution(new ArrayList<>(podAntiAffinity))
              .withPreferredDuringSchedulingIgnoredDuringExecution(
                  new ArrayList<>(preferredPodAntiAffinity))
              .build());
      any = true;
    }
    if (any) {
      pod.getSpec().setAffinity(affinity.build());
    }
    return pod;
  }
}
