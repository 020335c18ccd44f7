package io.hami.e2e.differential;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Generates one small cluster and one pending pod from a seed and a case index. The same seed and
 * index always give the same structure; {@code prefix} only renames it (node, namespace, class and
 * volume names and every label value that a selector could match across cases), so that each
 * scheduler gets its own identical copy and concurrent cases never see each other.
 */
final class CaseGenerator {
  /** Every generated node carries it with the copy's prefix; every pending pod selects it. */
  static final String CASE_LABEL = "diff.hami.io/case";

  static final String HOSTNAME = "kubernetes.io/hostname";
  static final String ZONE = "topology.kubernetes.io/zone";
  static final String REGION = "topology.kubernetes.io/region";
  static final String DISK = "diff.hami.io/disk";
  static final String RANK = "diff.hami.io/rank";
  static final String ACCEL = "diff.hami.io/accel";
  static final String APP = "app";
  static final String TIER = "tier";
  static final String VER = "ver";
  static final String TEAM = "team";
  static final String ENV = "env";
  static final String TAINT_KEY = "diff.hami.io/dedicated";
  static final String PENDING_NAME = "pending";

  /** The objects of one copy of a case, in creation order. */
  record Case(
      String prefix,
      List<Namespace> namespaces,
      List<StorageClass> storageClasses,
      List<Node> nodes,
      List<PersistentVolume> volumes,
      List<PersistentVolumeClaim> claims,
      List<Pod> existingPods,
      Pod pending) {}

  private final Random r;
  private final String p;

  private CaseGenerator(long seed, int index, String prefix) {
    this.r = new Random(seed * 1_000_003L + index);
    this.p = prefix;
  }

  static Case generate(long seed, int index, String prefix) {
    return new CaseGenerator(seed, index, prefix).generate();
  }

  private String v(String s) {
    return p + "-" + s;
  }

  private <T> T pick(List<T> from) {
    return from.get(r.nextInt(from.size()));
  }

  private boolean chance(int percent) {
    return r.nextInt(100) < percent;
  }

  private Case generate() {
    int zones = 1 + r.nextInt(3);
    int regions = 1 + r.nextInt(2);
    int nodeCount = 3 + r.nextInt(6);
    List<Node> nodes = new ArrayList<>();
    List<String> nodeNames = new ArrayList<>();
    List<String> zoneOfNode = new ArrayList<>();
    for (int i = 0; i < nodeCount; i++) {
      String name = v("n" + i);
      nodeNames.add(name);
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(CASE_LABEL, p);
      labels.put(HOSTNAME, name);
      labels.put("kubernetes.io/os", "linux");
      String zone = v("z" + r.nextInt(zones));
      if (!chance(8)) {
        labels.put(ZONE, zone);
        zoneOfNode.add(zone);
      } else {
        zoneOfNode.add("");
      }
      if (!chance(8)) {
        labels.put(REGION, v("r" + r.nextInt(regions)));
      }
      if (chance(60)) {
        labels.put(DISK, pick(List.of("ssd", "hdd")));
      }
      if (chance(50)) {
        labels.put(RANK, Integer.toString(r.nextInt(10)));
      }
      if (chance(25)) {
        labels.put(ACCEL, "present");
      }
      List<Taint> taints = new ArrayList<>();
      if (chance(30)) {
        taints.add(
            new Taint(
                pick(List.of("NoSchedule", "PreferNoSchedule", "NoExecute")),
                TAINT_KEY,
                null,
                pick(List.of("infra", "ml"))));
      }
      nodes.add(
          new NodeBuilder()
              .withNewMetadata()
              .withName(name)
              .withLabels(labels)
              .endMetadata()
              .withNewSpec()
              .withTaints(taints)
              .withUnschedulable(chance(5) ? Boolean.TRUE : null)
              .endSpec()
              .withNewStatus()
              .withAllocatable(
                  Map.of(
                      "cpu", new Quantity(Integer.toString(2 + r.nextInt(7))),
                      "memory", new Quantity((4 + r.nextInt(13)) + "Gi"),
                      "pods", new Quantity(chance(10) ? "3" : "110")))
              .endStatus()
              .build());
    }

    int nsCount = 2 + r.nextInt(2);
    List<Namespace> namespaces = new ArrayList<>();
    List<String> nsNames = new ArrayList<>();
    for (int i = 0; i < nsCount; i++) {
      String name = v("ns" + i);
      nsNames.add(name);
      namespaces.add(
          new NamespaceBuilder()
              .withNewMetadata()
              .withName(name)
              .withLabels(Map.of(TEAM, v("t" + r.nextInt(2)), ENV, v(pick(List.of("prod", "dev")))))
              .endMetadata()
              .build());
    }
    String podNs = nsNames.get(0);

    String wffc = v("local");
    String immediate = v("imm");
    List<StorageClass> classes =
        List.of(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(wffc)
                .withLabels(Map.of(CASE_LABEL, p))
                .endMetadata()
                .withProvisioner("kubernetes.io/no-provisioner")
                .withVolumeBindingMode("WaitForFirstConsumer")
                .build(),
            new StorageClassBuilder()
                .withNewMetadata()
                .withName(immediate)
                .withLabels(Map.of(CASE_LABEL, p))
                .endMetadata()
                .withProvisioner("kubernetes.io/no-provisioner")
                .withVolumeBindingMode("Immediate")
                .build());

    List<PersistentVolume> volumes = new ArrayList<>();
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    int localPvs = r.nextInt(5);
    for (int i = 0; i < localPvs; i++) {
      volumes.add(volume(v("lpv" + i), wffc, 1 + r.nextInt(10), HOSTNAME, pick(nodeNames), null));
    }
    int zonalPvs = r.nextInt(3);
    for (int i = 0; i < zonalPvs; i++) {
      String zone = v("z" + r.nextInt(zones));
      volumes.add(volume(v("zpv" + i), wffc, 1 + r.nextInt(10), ZONE, zone, null));
    }
    // Claims of the pending pod's namespace: bound ones (PV and claim made for each other, as the
    // PV binder leaves them), unbound late-binding ones and unbound immediate ones without a PV.
    List<String> podClaims = new ArrayList<>();
    if (chance(40)) {
      int n = 1 + r.nextInt(2);
      for (int i = 0; i < n; i++) {
        String claim = v("pvc" + i);
        int kind = r.nextInt(10);
        int size = 1 + r.nextInt(8);
        if (kind < 4) {
          String pv = v("bpv" + i);
          boolean zonal = chance(40);
          volumes.add(
              volume(
                  pv,
                  wffc,
                  size,
                  zonal ? ZONE : HOSTNAME,
                  zonal ? v("z" + r.nextInt(zones)) : pick(nodeNames),
                  podNs + "/" + claim));
          claims.add(claim(podNs, claim, wffc, size, pv));
        } else if (kind < 9) {
          claims.add(claim(podNs, claim, wffc, size, null));
        } else {
          claims.add(claim(podNs, claim, immediate, size, null));
        }
        podClaims.add(claim);
      }
    }

    List<Pod> existing = new ArrayList<>();
    int existingCount = r.nextInt(11);
    for (int i = 0; i < existingCount; i++) {
      Map<String, String> labels = podLabels();
      PodBuilder b =
          pod("e" + i, pick(nsNames), labels, cpu(), memory())
              .editSpec()
              .withNodeName(pick(nodeNames))
              .endSpec();
      if (chance(20)) {
        b.editSpec()
            .editOrNewAffinity()
            .withNewPodAntiAffinity()
            .withRequiredDuringSchedulingIgnoredDuringExecution(affinityTerm(false))
            .endPodAntiAffinity()
            .endAffinity()
            .endSpec();
      } else if (chance(15)) {
        b.editSpec()
            .editOrNewAffinity()
            .withNewPodAffinity()
            .withPreferredDuringSchedulingIgnoredDuringExecution(
                new WeightedPodAffinityTerm(affinityTerm(false), 1 + r.nextInt(100)))
            .endPodAffinity()
            .endAffinity()
            .endSpec();
      }
      existing.add(b.build());
    }

    Map<String, String> labels = podLabels();
    PodBuilder b = pod(PENDING_NAME, podNs, labels, cpu(), memory());
    Map<String, String> nodeSelector = new LinkedHashMap<>();
    nodeSelector.put(CASE_LABEL, p);
    if (chance(15)) {
      nodeSelector.put(DISK, pick(List.of("ssd", "hdd")));
    }
    b.editSpec().withNodeSelector(nodeSelector).endSpec();
    if (chance(50)) {
      List<NodeSelectorTerm> terms = new ArrayList<>();
      int n = 1 + (chance(25) ? 1 : 0);
      for (int i = 0; i < n; i++) {
        terms.add(nodeTerm(zones, nodeNames));
      }
      b.editSpec()
          .editOrNewAffinity()
          .withNewNodeAffinity()
          .withNewRequiredDuringSchedulingIgnoredDuringExecution()
          .withNodeSelectorTerms(terms)
          .endRequiredDuringSchedulingIgnoredDuringExecution()
          .endNodeAffinity()
          .endAffinity()
          .endSpec();
    }
    List<Toleration> tolerations = new ArrayList<>();
    if (chance(40)) {
      if (chance(30)) {
        tolerations.add(new Toleration(null, TAINT_KEY, "Exists", null, null));
      } else {
        tolerations.add(
            new Toleration(
                chance(70) ? pick(List.of("NoSchedule", "NoExecute")) : null,
                TAINT_KEY,
                "Equal",
                null,
                pick(List.of("infra", "ml"))));
      }
    }
    b.editSpec().addAllToTolerations(tolerations).endSpec();
    if (chance(30)) {
      List<PodAffinityTerm> required = new ArrayList<>();
      required.add(affinityTerm(true));
      b.editSpec()
          .editOrNewAffinity()
          .withNewPodAffinity()
          .withRequiredDuringSchedulingIgnoredDuringExecution(required)
          .endPodAffinity()
          .endAffinity()
          .endSpec();
    }
    if (chance(30)) {
      b.editSpec()
          .editOrNewAffinity()
          .withNewPodAntiAffinity()
          .withRequiredDuringSchedulingIgnoredDuringExecution(affinityTerm(true))
          .withPreferredDuringSchedulingIgnoredDuringExecution(
              chance(30) ? List.of(new WeightedPodAffinityTerm(affinityTerm(true), 50)) : List.of())
          .endPodAntiAffinity()
          .endAffinity()
          .endSpec();
    }
    if (chance(40)) {
      int n = 1 + (chance(30) ? 1 : 0);
      List<TopologySpreadConstraint> spread = new ArrayList<>();
      List<String> keys = new ArrayList<>(List.of(ZONE, HOSTNAME, REGION));
      for (int i = 0; i < n; i++) {
        String key = keys.remove(r.nextInt(keys.size()));
        boolean hard = chance(75);
        TopologySpreadConstraintBuilder t =
            new TopologySpreadConstraintBuilder()
                .withMaxSkew(1 + (chance(25) ? 1 : 0))
                .withTopologyKey(key)
                .withWhenUnsatisfiable(hard ? "DoNotSchedule" : "ScheduleAnyway")
                .withLabelSelector(selector(labels));
        if (hard && chance(30)) {
          t.withMinDomains(2 + r.nextInt(4));
        }
        if (chance(25)) {
          t.withNodeTaintsPolicy(pick(List.of("Honor", "Ignore")));
        }
        if (chance(20)) {
          t.withNodeAffinityPolicy("Honor");
        }
        if (chance(25) && labels.containsKey(VER)) {
          t.withMatchLabelKeys(VER);
        }
        spread.add(t.build());
      }
      b.editSpec().withTopologySpreadConstraints(spread).endSpec();
    }
    for (String claim : podClaims) {
      b.editSpec()
          .addToVolumes(
              new VolumeBuilder()
                  .withName(claim)
                  .withNewPersistentVolumeClaim()
                  .withClaimName(claim)
                  .endPersistentVolumeClaim()
                  .build())
          .endSpec();
    }
    return new Case(p, namespaces, classes, nodes, volumes, claims, existing, b.build());
  }

  private Map<String, String> podLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    if (chance(85)) {
      labels.put(APP, v(pick(List.of("web", "db", "cache"))));
    }
    if (chance(50)) {
      labels.put(TIER, v(pick(List.of("front", "back"))));
    }
    if (chance(50)) {
      labels.put(VER, v(pick(List.of("v1", "v2"))));
    }
    return labels;
  }

  /** A selector on the app (or tier) label, matching some of the generated pods. */
  private LabelSelector selector(Map<String, String> own) {
    if (own.containsKey(APP) && chance(60)) {
      return new LabelSelectorBuilder().addToMatchLabels(APP, own.get(APP)).build();
    }
    if (chance(50)) {
      return new LabelSelectorBuilder()
          .addToMatchExpressions(
              new LabelSelectorRequirement(
                  APP, "In", List.of(v(pick(List.of("web", "db", "cache"))), v("db"))))
          .build();
    }
    return new LabelSelectorBuilder()
        .addToMatchLabels(TIER, v(pick(List.of("front", "back"))))
        .build();
  }

  private PodAffinityTerm affinityTerm(boolean pending) {
    Map<String, String> none = Map.of();
    PodAffinityTerm t = new PodAffinityTerm();
    t.setLabelSelector(selector(none));
    t.setTopologyKey(pick(List.of(HOSTNAME, HOSTNAME, ZONE, REGION)));
    int ns = r.nextInt(10);
    if (ns < 2) {
      t.setNamespaceSelector(
          new LabelSelectorBuilder().addToMatchLabels(TEAM, v("t" + r.nextInt(2))).build());
    } else if (ns < 3) {
      t.setNamespaceSelector(new LabelSelector());
    } else if (ns < 4) {
      t.setNamespaces(List.of(v("ns" + r.nextInt(2)), v("ns1")));
    }
    if (pending && chance(25)) {
      t.setMatchLabelKeys(List.of(VER));
    }
    return t;
  }

  private NodeSelectorTerm nodeTerm(int zones, List<String> nodeNames) {
    List<NodeSelectorRequirement> exprs = new ArrayList<>();
    int n = 1 + r.nextInt(2);
    for (int i = 0; i < n; i++) {
      switch (r.nextInt(7)) {
        case 0 ->
            exprs.add(
                new NodeSelectorRequirement(
                    ZONE, "In", List.of(v("z" + r.nextInt(zones)), v("z" + r.nextInt(zones)))));
        case 1 -> exprs.add(new NodeSelectorRequirement(DISK, "NotIn", List.of("hdd")));
        case 2 ->
            exprs.add(new NodeSelectorRequirement(HOSTNAME, "NotIn", List.of(pick(nodeNames))));
        case 3 -> exprs.add(new NodeSelectorRequirement(ACCEL, "Exists", List.of()));
        case 4 -> exprs.add(new NodeSelectorRequirement(ACCEL, "DoesNotExist", List.of()));
        case 5 ->
            exprs.add(
                new NodeSelectorRequirement(
                    RANK, pick(List.of("Gt", "Lt")), List.of(Integer.toString(r.nextInt(10)))));
        default -> exprs.add(new NodeSelectorRequirement(REGION, "In", List.of(v("r0"))));
      }
    }
    NodeSelectorTerm t = new NodeSelectorTerm();
    t.setMatchExpressions(exprs);
    return t;
  }

  private String cpu() {
    return (100 * (1 + r.nextInt(20))) + "m";
  }

  private String memory() {
    return (128 * (1 + r.nextInt(24))) + "Mi";
  }

  private static PodBuilder pod(
      String name, String ns, Map<String, String> labels, String cpu, String memory) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(0L)
        .withContainers(
            new ContainerBuilder()
                .withName("c")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)))
                .endResources()
                .build())
        .endSpec();
  }

  private PersistentVolume volume(
      String name, String storageClass, int sizeGi, String key, String value, String claim) {
    PersistentVolumeBuilder b =
        new PersistentVolumeBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels(CASE_LABEL, p)
            .endMetadata()
            .withNewSpec()
            .withCapacity(Map.of("storage", new Quantity(sizeGi + "Gi")))
            .withAccessModes("ReadWriteOnce")
            .withStorageClassName(storageClass)
            .withPersistentVolumeReclaimPolicy("Retain")
            .withNewLocal()
            .withPath("/mnt/" + name)
            .endLocal()
            .withNewNodeAffinity()
            .withNewRequired()
            .addNewNodeSelectorTerm()
            .addNewMatchExpression()
            .withKey(key)
            .withOperator("In")
            .withValues(value)
            .endMatchExpression()
            .endNodeSelectorTerm()
            .endRequired()
            .endNodeAffinity()
            .endSpec();
    if (key.equals(ZONE)) {
      b.editMetadata().addToLabels(ZONE, value).endMetadata();
    }
    if (claim != null) {
      String[] nsName = claim.split("/", 2);
      b.editSpec()
          .withNewClaimRef()
          .withNamespace(nsName[0])
          .withName(nsName[1])
          .endClaimRef()
          .endSpec();
    }
    return b.build();
  }

  private static PersistentVolumeClaim claim(
      String ns, String name, String storageClass, int sizeGi, String volume) {
    PersistentVolumeClaimBuilder b =
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ns)
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withStorageClassName(storageClass)
            .withNewResources()
            .withRequests(Map.of("storage", new Quantity(sizeGi + "Gi")))
            .endResources()
            .endSpec();
    if (volume != null) {
      // Bound as the PV binder leaves a claim, so neither scheduler waits for the binder.
      b.editSpec()
          .withVolumeName(volume)
          .endSpec()
          .editMetadata()
          .addToAnnotations("pv.kubernetes.io/bind-completed", "yes")
          .endMetadata();
    }
    return b.build();
  }
}
