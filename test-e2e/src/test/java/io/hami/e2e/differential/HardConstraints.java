package io.hami.e2e.differential;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks a placement against the hard constraints of Kubernetes scheduling, written from the API
 * documentation alone: nodeSelector, required node affinity, taints and tolerations, resources,
 * unschedulable nodes, required pod affinity and anti-affinity (both the pod's and the existing
 * pods'), DoNotSchedule topology spread and the node affinity of the pod's persistent volumes.
 *
 * @param nodes the case's nodes
 * @param pods the pods bound to them, without the pod being checked
 * @param namespaces the namespaces, for namespace selectors
 * @param claims the claims of the pod's namespace after its placement
 * @param volumes the persistent volumes after its placement
 */
record HardConstraints(
    List<Node> nodes,
    List<Pod> pods,
    List<Namespace> namespaces,
    List<PersistentVolumeClaim> claims,
    List<PersistentVolume> volumes) {

  /** The violated constraints of placing {@code pod} on {@code nodeName}; empty when none. */
  List<String> violations(Pod pod, String nodeName) {
    List<String> out = new ArrayList<>();
    Node node =
        nodes.stream()
            .filter(n -> n.getMetadata().getName().equals(nodeName))
            .findFirst()
            .orElse(null);
    if (node == null) {
      out.add("placed on " + nodeName + ", which is not a node of the case");
      return out;
    }
    Map<String, String> labels = labels(node);
    if (Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      out.add("node is unschedulable");
    }
    if (!nodeSelectorMatches(pod, node)) {
      out.add("nodeSelector or required node affinity does not match the node's labels");
    }
    for (Taint t : taints(node)) {
      if (("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
          && !tolerated(pod, t)) {
        out.add("untolerated taint " + t.getKey() + "=" + t.getValue() + ":" + t.getEffect());
      }
    }
    resources(pod, node, out);
    podAffinity(pod, node, labels, out);
    podAntiAffinity(pod, labels, out);
    existingAntiAffinity(pod, labels, out);
    spread(pod, node, out);
    volumes(pod, node, out);
    return out;
  }

  // ---- node selection

  static Map<String, String> labels(Node n) {
    return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
  }

  static Map<String, String> labels(Pod p) {
    return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
  }

  private static List<Taint> taints(Node n) {
    return n.getSpec() == null || n.getSpec().getTaints() == null
        ? List.of()
        : n.getSpec().getTaints();
  }

  /** nodeSelector and required node affinity; node-affinity-policy Honor. */
  static boolean nodeSelectorMatches(Pod pod, Node node) {
    Map<String, String> labels = labels(node);
    Map<String, String> sel = pod.getSpec().getNodeSelector();
    if (sel != null) {
      for (var e : sel.entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    var aff = pod.getSpec().getAffinity();
    if (aff == null
        || aff.getNodeAffinity() == null
        || aff.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return true;
    }
    List<NodeSelectorTerm> terms =
        aff.getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    return terms.stream().anyMatch(t -> termMatches(t, node));
  }

  static boolean termMatches(NodeSelectorTerm t, Node node) {
    List<NodeSelectorRequirement> exprs =
        t.getMatchExpressions() == null ? List.of() : t.getMatchExpressions();
    List<NodeSelectorRequirement> fields =
        t.getMatchFields() == null ? List.of() : t.getMatchFields();
    if (exprs.isEmpty() && fields.isEmpty()) {
      return false; // an empty term matches no node
    }
    Map<String, String> labels = labels(node);
    for (NodeSelectorRequirement e : exprs) {
      if (!requirementMatches(e, labels.get(e.getKey()))) {
        return false;
      }
    }
    for (NodeSelectorRequirement f : fields) {
      String value = "metadata.name".equals(f.getKey()) ? node.getMetadata().getName() : null;
      if (!requirementMatches(f, value)) {
        return false;
      }
    }
    return true;
  }

  private static boolean requirementMatches(NodeSelectorRequirement e, String value) {
    List<String> values = e.getValues() == null ? List.of() : e.getValues();
    switch (e.getOperator()) {
      case "In":
        return value != null && values.contains(value);
      case "NotIn":
        return value == null || !values.contains(value);
      case "Exists":
        return value != null;
      case "DoesNotExist":
        return value == null;
      case "Gt":
      case "Lt":
        if (value == null) {
          return false;
        }
        try {
          long have = Long.parseLong(value);
          long want = Long.parseLong(values.get(0));
          return "Gt".equals(e.getOperator()) ? have > want : have < want;
        } catch (NumberFormatException notANumber) {
          return false;
        }
      default:
        return false;
    }
  }

  static boolean tolerated(Pod pod, Taint t) {
    List<Toleration> tols =
        pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    for (Toleration tol : tols) {
      if (tol.getEffect() != null
          && !tol.getEffect().isEmpty()
          && !tol.getEffect().equals(t.getEffect())) {
        continue;
      }
      if (tol.getKey() == null || tol.getKey().isEmpty()) {
        if ("Exists".equals(tol.getOperator())) {
          return true;
        }
        continue;
      }
      if (!tol.getKey().equals(t.getKey())) {
        continue;
      }
      if ("Exists".equals(tol.getOperator())) {
        return true;
      }
      if (Objects.equals(emptyIfNull(tol.getValue()), emptyIfNull(t.getValue()))) {
        return true;
      }
    }
    return false;
  }

  private static String emptyIfNull(String s) {
    return s == null ? "" : s;
  }

  // ---- resources

  private void resources(Pod pod, Node node, List<String> out) {
    String name = node.getMetadata().getName();
    List<Pod> here = onNode(name);
    Map<String, Quantity> alloc = node.getStatus().getAllocatable();
    for (String res : List.of("cpu", "memory")) {
      BigDecimal used =
          here.stream().map(p -> request(p, res)).reduce(BigDecimal.ZERO, BigDecimal::add);
      BigDecimal want = request(pod, res);
      BigDecimal have =
          alloc.containsKey(res) ? alloc.get(res).getNumericalAmount() : BigDecimal.ZERO;
      if (used.add(want).compareTo(have) > 0) {
        out.add("insufficient " + res + ": " + used + " used + " + want + " > " + have);
      }
    }
    if (alloc.containsKey("pods")
        && here.size() + 1 > alloc.get("pods").getNumericalAmount().intValue()) {
      out.add("too many pods: " + here.size() + " + 1 > " + alloc.get("pods"));
    }
  }

  private static BigDecimal request(Pod p, String res) {
    BigDecimal sum = BigDecimal.ZERO;
    for (Container c : p.getSpec().getContainers()) {
      if (c.getResources() != null
          && c.getResources().getRequests() != null
          && c.getResources().getRequests().containsKey(res)) {
        sum = sum.add(c.getResources().getRequests().get(res).getNumericalAmount());
      }
    }
    return sum;
  }

  private List<Pod> onNode(String name) {
    return pods.stream().filter(p -> name.equals(p.getSpec().getNodeName())).toList();
  }

  private Map<String, String> nodeLabels(String nodeName) {
    return nodes.stream()
        .filter(n -> n.getMetadata().getName().equals(nodeName))
        .findFirst()
        .map(HardConstraints::labels)
        .orElse(Map.of());
  }

  // ---- pod (anti-)affinity

  /** The namespaces a term selects, relative to the namespace of the pod that carries it. */
  private boolean termNamespaceMatches(PodAffinityTerm t, String ownerNs, String candidateNs) {
    boolean hasList = t.getNamespaces() != null && !t.getNamespaces().isEmpty();
    if (!hasList && t.getNamespaceSelector() == null) {
      return ownerNs.equals(candidateNs);
    }
    if (hasList && t.getNamespaces().contains(candidateNs)) {
      return true;
    }
    if (t.getNamespaceSelector() != null) {
      Map<String, String> nsLabels =
          namespaces.stream()
              .filter(n -> n.getMetadata().getName().equals(candidateNs))
              .findFirst()
              .map(
                  n ->
                      n.getMetadata().getLabels() == null
                          ? Map.<String, String>of()
                          : n.getMetadata().getLabels())
              .orElse(null);
      return nsLabels != null && selectorMatches(t.getNamespaceSelector(), nsLabels);
    }
    return false;
  }

  /** The term's selector with its matchLabelKeys merged from the owner's labels. */
  private static boolean termSelects(
      PodAffinityTerm t, Map<String, String> owner, Map<String, String> candidate) {
    if (t.getLabelSelector() == null || !selectorMatches(t.getLabelSelector(), candidate)) {
      return false;
    }
    return keysMatch(t.getMatchLabelKeys(), owner, candidate);
  }

  private static boolean keysMatch(
      List<String> keys, Map<String, String> owner, Map<String, String> candidate) {
    if (keys != null) {
      for (String k : keys) {
        if (owner.containsKey(k) && !owner.get(k).equals(candidate.get(k))) {
          return false;
        }
      }
    }
    return true;
  }

  static boolean selectorMatches(LabelSelector s, Map<String, String> labels) {
    if (s.getMatchLabels() != null) {
      for (var e : s.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (s.getMatchExpressions() != null) {
      for (LabelSelectorRequirement e : s.getMatchExpressions()) {
        String v = labels.get(e.getKey());
        List<String> vals = e.getValues() == null ? List.of() : e.getValues();
        boolean ok =
            switch (e.getOperator()) {
              case "In" -> v != null && vals.contains(v);
              case "NotIn" -> v == null || !vals.contains(v);
              case "Exists" -> v != null;
              case "DoesNotExist" -> v == null;
              default -> false;
            };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  private static List<PodAffinityTerm> required(Pod p, boolean anti) {
    var a = p.getSpec().getAffinity();
    if (a == null) {
      return List.of();
    }
    var terms =
        anti
            ? (a.getPodAntiAffinity() == null
                ? null
                : a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
            : (a.getPodAffinity() == null
                ? null
                : a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
    return terms == null ? List.of() : terms;
  }

  private boolean matchesTermHere(Pod owner, PodAffinityTerm t, Pod candidate) {
    return termNamespaceMatches(
            t, owner.getMetadata().getNamespace(), candidate.getMetadata().getNamespace())
        && termSelects(t, labels(owner), labels(candidate));
  }

  private void podAffinity(Pod pod, Node node, Map<String, String> labels, List<String> out) {
    List<PodAffinityTerm> terms = required(pod, false);
    if (terms.isEmpty()) {
      return;
    }
    boolean allSatisfied = true;
    boolean anyMatchAnywhere = false;
    for (PodAffinityTerm t : terms) {
      String domain = labels.get(t.getTopologyKey());
      boolean satisfied = false;
      for (Pod e : pods) {
        if (!matchesTermHere(pod, t, e)) {
          continue;
        }
        String other = nodeLabels(e.getSpec().getNodeName()).get(t.getTopologyKey());
        // Only pods on nodes with the topology key count as matching somewhere.
        anyMatchAnywhere |= other != null;
        if (domain != null && domain.equals(other)) {
          satisfied = true;
        }
      }
      allSatisfied &= satisfied;
    }
    if (allSatisfied) {
      return;
    }
    // No pod anywhere matches: a pod that matches its own terms may start the group.
    boolean selfMatch = terms.stream().allMatch(t -> matchesTermHere(pod, t, pod));
    boolean hasKeys = terms.stream().allMatch(t -> labels.containsKey(t.getTopologyKey()));
    if (anyMatchAnywhere || !selfMatch || !hasKeys) {
      out.add("required pod affinity not satisfied");
    }
  }

  private void podAntiAffinity(Pod pod, Map<String, String> labels, List<String> out) {
    for (PodAffinityTerm t : required(pod, true)) {
      String domain = labels.get(t.getTopologyKey());
      if (domain == null) {
        continue;
      }
      for (Pod e : pods) {
        if (matchesTermHere(pod, t, e)
            && domain.equals(nodeLabels(e.getSpec().getNodeName()).get(t.getTopologyKey()))) {
          out.add(
              "required pod anti-affinity violated by "
                  + e.getMetadata().getNamespace()
                  + "/"
                  + e.getMetadata().getName()
                  + " ("
                  + t.getTopologyKey()
                  + "="
                  + domain
                  + ")");
        }
      }
    }
  }

  private void existingAntiAffinity(Pod pod, Map<String, String> labels, List<String> out) {
    for (Pod e : pods) {
      for (PodAffinityTerm t : required(e, true)) {
        String domain = labels.get(t.getTopologyKey());
        if (domain != null
            && matchesTermHere(e, t, pod)
            && domain.equals(nodeLabels(e.getSpec().getNodeName()).get(t.getTopologyKey()))) {
          out.add(
              "existing pod "
                  + e.getMetadata().getNamespace()
                  + "/"
                  + e.getMetadata().getName()
                  + " has required anti-affinity against this pod ("
                  + t.getTopologyKey()
                  + "="
                  + domain
                  + ")");
        }
      }
    }
  }

  // ---- topology spread

  private void spread(Pod pod, Node node, List<String> out) {
    List<TopologySpreadConstraint> all =
        pod.getSpec().getTopologySpreadConstraints() == null
            ? List.of()
            : pod.getSpec().getTopologySpreadConstraints();
    List<TopologySpreadConstraint> hard =
        all.stream().filter(c -> "DoNotSchedule".equals(c.getWhenUnsatisfiable())).toList();
    if (hard.isEmpty()) {
      return;
    }
    Set<String> keys =
        hard.stream().map(TopologySpreadConstraint::getTopologyKey).collect(Collectors.toSet());
    for (TopologySpreadConstraint c : hard) {
      String key = c.getTopologyKey();
      String domain = labels(node).get(key);
      if (domain == null) {
        out.add("node lacks topology key " + key + " of a DoNotSchedule spread constraint");
        continue;
      }
      Map<String, Integer> counts = new HashMap<>();
      for (Node n : nodes) {
        Map<String, String> nl = labels(n);
        if (!keys.stream().allMatch(nl::containsKey)) {
          continue;
        }
        boolean honorAffinity = !"Ignore".equals(c.getNodeAffinityPolicy());
        if (honorAffinity && !nodeSelectorMatches(pod, n)) {
          continue;
        }
        if ("Honor".equals(c.getNodeTaintsPolicy())
            && taints(n).stream()
                .anyMatch(
                    t ->
                        ("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
                            && !tolerated(pod, t))) {
          continue;
        }
        String d = nl.get(key);
        int matching =
            (int)
                onNode(n.getMetadata().getName()).stream()
                    .filter(
                        e ->
                            e.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace()))
                    .filter(e -> spreadSelects(c, pod, e))
                    .count();
        counts.merge(d, matching, Integer::sum);
      }
      int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
      int minDomains = c.getMinDomains() == null ? 1 : c.getMinDomains();
      if (counts.size() < minDomains) {
        min = 0;
      }
      int self = spreadSelects(c, pod, pod) ? 1 : 0;
      int skew = counts.getOrDefault(domain, 0) + self - min;
      if (skew > c.getMaxSkew()) {
        out.add(
            "topology spread on "
                + key
                + " violated: skew "
                + skew
                + " > maxSkew "
                + c.getMaxSkew()
                + " (counts "
                + counts
                + ", domain "
                + domain
                + ")");
      }
    }
  }

  private static boolean spreadSelects(TopologySpreadConstraint c, Pod owner, Pod candidate) {
    return c.getLabelSelector() != null
        && selectorMatches(c.getLabelSelector(), labels(candidate))
        && keysMatch(c.getMatchLabelKeys(), labels(owner), labels(candidate));
  }

  // ---- volumes

  private void volumes(Pod pod, Node node, List<String> out) {
    List<Volume> vols = pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    for (Volume v : vols) {
      if (v.getPersistentVolumeClaim() == null) {
        continue;
      }
      String claimName = v.getPersistentVolumeClaim().getClaimName();
      PersistentVolumeClaim claim =
          claims.stream()
              .filter(
                  c ->
                      c.getMetadata().getName().equals(claimName)
                          && c.getMetadata()
                              .getNamespace()
                              .equals(pod.getMetadata().getNamespace()))
              .findFirst()
              .orElse(null);
      if (claim == null) {
        out.add("claim " + claimName + " does not exist");
        continue;
      }
      String pvName = claim.getSpec().getVolumeName();
      if (pvName == null || pvName.isEmpty()) {
        out.add("claim " + claimName + " is not bound after the pod was placed");
        continue;
      }
      PersistentVolume pv =
          volumes.stream()
              .filter(x -> x.getMetadata().getName().equals(pvName))
              .findFirst()
              .orElse(null);
      if (pv == null) {
        out.add("claim " + claimName + " is bound to missing volume " + pvName);
        continue;
      }
      if (pv.getSpec().getNodeAffinity() != null
          && pv.getSpec().getNodeAffinity().getRequired() != null
          && pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms().stream()
              .noneMatch(t -> termMatches(t, node))) {
        out.add("volume " + pvName + " of claim " + claimName + " is not reachable from the node");
      }
    }
  }
}
