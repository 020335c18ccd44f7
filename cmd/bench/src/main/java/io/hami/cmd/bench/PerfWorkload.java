package io.hami.cmd.bench;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.hami.framework.config.SchedulerConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The workloads of {@code hami bench scheduler}: the GPU pods of {@link SchedulerBench.PodShapes},
 * or one of kube-scheduler's scheduler_perf workloads on plain pods (100m CPU, 500 MiB), each with
 * its init pods bound first and then its measured pods, as scheduler_perf runs them.
 */
public enum PerfWorkload {
  /** GPU pods of the chosen shapes; no init pods. */
  GPU(0),
  /**
   * SchedulingPodAntiAffinity: every pod (init in one namespace, measured in another) repels the
   * others on its hostname.
   */
  POD_ANTI_AFFINITY(1000),
  /** SchedulingPreferredPodAffinity: every pod prefers a hostname that holds the others. */
  PREFERRED_POD_AFFINITY(5000),
  /**
   * TopologySpreading: plain init pods, then pods spread over three zones with {@code maxSkew: 5},
   * DoNotSchedule.
   */
  TOPOLOGY_SPREADING(1000),
  /**
   * SchedulingCSIPVs: every pod mounts its own claim, pre-bound to a CSI volume; nodes report a CSI
   * attach limit of 39.
   */
  PVS(2000);

  static final String CSI_DRIVER = "ebs.csi.aws.com";

  /** CSI volumes each node may attach ({@link #PVS}), as scheduler_perf's CSINodes report. */
  static final int CSI_ATTACH_LIMIT = 39;

  /** The valid {@code pods.template} values, for error messages. */
  static final String TEMPLATES =
      "pod-anti-affinity, preferred-pod-affinity, topology-spreading, pvs";

  /** The namespace of the init pods. */
  static final String NS_INIT = "sched-0";

  /** The namespace of the measured pods. */
  static final String NS_MEASURED = "sched-1";

  private final int initPods;

  PerfWorkload(int initPods) {
    this.initPods = initPods;
  }

  /** The name on the command line: the constant in lower case with dashes. */
  public String flag() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Parses a {@link #flag()}.
   *
   * @throws IllegalArgumentException naming the flag and the valid values
   */
  public static PerfWorkload fromFlag(String s) {
    for (PerfWorkload w : values()) {
      if (w.flag().equals(s)) {
        return w;
      }
    }
    throw new IllegalArgumentException(
        "--workload: invalid value \""
            + s
            + "\": must be one of gpu, pod-anti-affinity, preferred-pod-affinity,"
            + " topology-spreading, pvs");
  }

  /**
   * Parses a scheduler_perf workload's {@link #flag()} as a cluster workload's {@code
   * pods.template}: any workload but {@link #GPU} (GPU pods are declared by their shapes).
   *
   * @return null when {@code s} names none
   */
  static @Nullable PerfWorkload fromTemplate(String s) {
    for (PerfWorkload w : values()) {
      if (w != GPU && w.flag().equals(s)) {
        return w;
      }
    }
    return null;
  }

  /**
   * Why {@code initPods + measuredPods} pods of this workload cannot all fit on {@code nodes}
   * nodes, or null when they can: anti-affinity places one pod per node, and each node attaches at
   * most {@link #CSI_ATTACH_LIMIT} volumes.
   */
  @Nullable String capacityProblem(int nodes, int initPods, int measuredPods) {
    long pods = (long) initPods + measuredPods;
    return switch (this) {
      case POD_ANTI_AFFINITY ->
          pods > nodes
              ? "init and measured pods ("
                  + pods
                  + ") exceed the node count "
                  + nodes
                  + ": anti-affinity places one pod per node"
              : null;
      case PVS ->
          pods > (long) nodes * CSI_ATTACH_LIMIT
              ? "init and measured pods ("
                  + pods
                  + ") exceed "
                  + CSI_ATTACH_LIMIT
                  + " volumes per node on "
                  + nodes
                  + " nodes"
              : null;
      default -> null;
    };
  }

  /** How many pods are bound before measuring by default (scheduler_perf's at 5,000 nodes). */
  public int initPods() {
    return initPods;
  }

  /**
   * The objects the workload needs besides nodes and pods: namespaces, volumes, CSINodes.
   *
   * @param nodes the names of the nodes (one CSINode each for {@link #PVS})
   */
  List<HasMetadata> objects(List<String> nodes, int initPods, int measuredPods) {
    List<HasMetadata> out = new ArrayList<>();
    for (String ns : List.of(NS_INIT, NS_MEASURED)) {
      out.add(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }
    if (this == PVS) {
      for (int i = 0; i < nodes.size(); i++) {
        out.add(
            new CSINodeBuilder()
                .withNewMetadata()
                .withName(nodes.get(i))
                .endMetadata()
                .withNewSpec()
                .addNewDriver()
                .withName(CSI_DRIVER)
                .withNodeID("i-" + i)
                .withNewAllocatable()
                .withCount(CSI_ATTACH_LIMIT)
                .endAllocatable()
                .endDriver()
                .endSpec()
                .build());
      }
      for (int i = 0; i < initPods; i++) {
        volume(out, NS_INIT, "init-" + i);
      }
      for (int i = 0; i < measuredPods; i++) {
        volume(out, NS_MEASURED, "pod-" + i);
      }
    }
    return out;
  }

  /**
   * A CSI volume and its claim, bound to each other; the claim carries {@code
   * pv.kubernetes.io/bind-completed}, as the volume controller leaves it (kube-scheduler counts a
   * claim without it as unbound).
   */
  private static void volume(List<HasMetadata> out, String ns, String pod) {
    String pv = "pv-" + ns + "-" + pod;
    String claim = "pvc-" + pod;
    out.add(
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(pv)
            .endMetadata()
            .withNewSpec()
            .addToCapacity("storage", new Quantity("1Gi"))
            .withAccessModes("ReadWriteOnce")
            .withPersistentVolumeReclaimPolicy("Retain")
            .withNewCsi()
            .withDriver(CSI_DRIVER)
            .withVolumeHandle("vol-" + ns + "-" + pod)
            .endCsi()
            .withNewClaimRef()
            .withNamespace(ns)
            .withName(claim)
            .endClaimRef()
            .endSpec()
            .withNewStatus()
            .withPhase("Bound")
            .endStatus()
            .build());
    out.add(
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(claim)
            .withNamespace(ns)
            .addToAnnotations("pv.kubernetes.io/bind-completed", "yes")
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withVolumeName(pv)
            .withNewResources()
            .addToRequests("storage", new Quantity("1Gi"))
            .endResources()
            .endSpec()
            .withNewStatus()
            .withPhase("Bound")
            .endStatus()
            .build());
  }

  /** The i-th init pod (bound before measuring), for our scheduler. */
  Pod initPod(int i) {
    return initPod(i, SchedulerConfiguration.DEFAULT_SCHEDULER_NAME);
  }

  /** The i-th init pod (bound before measuring), for {@code schedulerName}. */
  Pod initPod(int i, String schedulerName) {
    return pod(NS_INIT, "init-" + i, this != TOPOLOGY_SPREADING, schedulerName);
  }

  /** The i-th measured pod, for our scheduler. */
  Pod measuredPod(int i) {
    return measuredPod(i, SchedulerConfiguration.DEFAULT_SCHEDULER_NAME);
  }

  /** The i-th measured pod, for {@code schedulerName}. */
  Pod measuredPod(int i, String schedulerName) {
    return pod(NS_MEASURED, "pod-" + i, true, schedulerName);
  }

  private Pod pod(String ns, String name, boolean withConstraint, String schedulerName) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(schedulerName)
            .withAutomountServiceAccountToken(false)
            .withTerminationGracePeriodSeconds(0L)
            .addNewContainer()
            .withName("pause")
            .withImage("registry.k8s.io/pause:3.10")
            .withNewResources()
            .addToRequests("cpu", new Quantity("100m"))
            .addToRequests("memory", new Quantity("500Mi"))
            .endResources()
            .endContainer()
            .endSpec();
    if (!withConstraint) {
      return b.build();
    }
    switch (this) {
      case POD_ANTI_AFFINITY ->
          b.editMetadata()
              .addToLabels("color", "green")
              .endMetadata()
              .editSpec()
              .withNewAffinity()
              .withNewPodAntiAffinity()
              .addToRequiredDuringSchedulingIgnoredDuringExecution(term("color", "green"))
              .endPodAntiAffinity()
              .endAffinity()
              .endSpec();
      case PREFERRED_POD_AFFINITY ->
          b.editMetadata()
              .addToLabels("color", "red")
              .endMetadata()
              .editSpec()
              .withNewAffinity()
              .withNewPodAffinity()
              .addNewPreferredDuringSchedulingIgnoredDuringExecution()
              .withWeight(1)
              .withPodAffinityTerm(term("color", "red"))
              .endPreferredDuringSchedulingIgnoredDuringExecution()
              .endPodAffinity()
              .endAffinity()
              .endSpec();
      case TOPOLOGY_SPREADING ->
          b.editMetadata()
              .addToLabels("color", "blue")
              .endMetadata()
              .editSpec()
              .addNewTopologySpreadConstraint()
              .withMaxSkew(5)
              .withTopologyKey("topology.kubernetes.io/zone")
              .withWhenUnsatisfiable("DoNotSchedule")
              .withLabelSelector(
                  new LabelSelectorBuilder().addToMatchLabels("color", "blue").build())
              .endTopologySpreadConstraint()
              .endSpec();
      case PVS ->
          b.editSpec()
              .addNewVolume()
              .withName("data")
              .withNewPersistentVolumeClaim()
              .withClaimName("pvc-" + name)
              .endPersistentVolumeClaim()
              .endVolume()
              .endSpec();
      case GPU -> throw new IllegalStateException("GPU pods come from SchedulerBench.PodShapes");
    }
    return b.build();
  }

  private static PodAffinityTerm term(String key, String value) {
    return new PodAffinityTermBuilder()
        .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels(key, value).build())
        .withTopologyKey("kubernetes.io/hostname")
        .withNamespaces(NS_INIT, NS_MEASURED)
        .build();
  }
}
