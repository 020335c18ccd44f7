package io.hami.framework.plugins.podtopologyspread;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.plugins.helper.Selector;
import io.hami.framework.plugins.helper.Tolerations;
import io.hami.framework.plugins.nodeaffinity.RequiredNodeAffinity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One topology spread constraint of a pod, ready to evaluate: its selector already carries the
 * pod's {@code matchLabelKeys} values, and the node inclusion policies are resolved to flags.
 *
 * @param maxSkew the most the domain of a node may exceed the global minimum by
 * @param topologyKey the node label whose values are the domains
 * @param selector which pods (in the incoming pod's namespace) count
 * @param minDomains below this many eligible domains the global minimum is taken as 0
 * @param honorNodeAffinity whether only nodes matching the pod's required node affinity count
 *     (nodeAffinityPolicy Honor, the default)
 * @param honorNodeTaints whether nodes with taints the pod does not tolerate are left out
 *     (nodeTaintsPolicy Honor; Ignore is the default)
 */
record Constraint(
    int maxSkew,
    String topologyKey,
    Selector selector,
    int minDomains,
    boolean honorNodeAffinity,
    boolean honorNodeTaints) {

  static final String HOSTNAME = "kubernetes.io/hostname";
  static final String ZONE = "topology.kubernetes.io/zone";
  static final String DO_NOT_SCHEDULE = "DoNotSchedule";
  static final String SCHEDULE_ANYWAY = "ScheduleAnyway";
  static final String HONOR = "Honor";
  static final String IGNORE = "Ignore";

  boolean isHostname() {
    return HOSTNAME.equals(topologyKey);
  }

  /**
   * The constraints of {@code action} among {@code constraints}, with the selector of each built
   * from its labelSelector and {@code podLabels}' values of its matchLabelKeys. Constraints with
   * another whenUnsatisfiable are left out.
   *
   * @param path the path of the list, for errors
   * @throws IllegalArgumentException naming the field of a malformed constraint
   */
  static List<Constraint> filter(
      List<TopologySpreadConstraint> constraints,
      @Nullable Map<String, String> podLabels,
      String action,
      String path) {
    List<Constraint> out = new ArrayList<>(constraints.size());
    for (int i = 0; i < constraints.size(); i++) {
      TopologySpreadConstraint c = constraints.get(i);
      if (c == null || !action.equals(c.getWhenUnsatisfiable())) {
        continue;
      }
      String field = path + "[" + i + "]";
      if (c.getMaxSkew() == null || c.getMaxSkew() <= 0) {
        throw new IllegalArgumentException(
            field + ".maxSkew: invalid value " + c.getMaxSkew() + ": must be greater than zero");
      }
      if (c.getTopologyKey() == null || c.getTopologyKey().isEmpty()) {
        throw new IllegalArgumentException(field + ".topologyKey: required value");
      }
      Selector selector = Selector.of(c.getLabelSelector(), field + ".labelSelector");
      List<String> keys = c.getMatchLabelKeys();
      if (keys != null && !keys.isEmpty() && podLabels != null) {
        LinkedHashMap<String, String> values = new LinkedHashMap<>();
        for (String k : keys) {
          String v = k == null ? null : podLabels.get(k);
          if (v != null) {
            values.put(k, v);
          }
        }
        if (!values.isEmpty()) {
          selector = selector.and(Selector.ofLabels(values));
        }
      }
      int minDomains = c.getMinDomains() == null ? 1 : c.getMinDomains();
      if (minDomains <= 0) {
        throw new IllegalArgumentException(
            field + ".minDomains: invalid value " + minDomains + ": must be greater than zero");
      }
      out.add(
          new Constraint(
              c.getMaxSkew(),
              c.getTopologyKey(),
              selector,
              minDomains,
              policy(c.getNodeAffinityPolicy(), HONOR, field + ".nodeAffinityPolicy"),
              policy(c.getNodeTaintsPolicy(), IGNORE, field + ".nodeTaintsPolicy")));
    }
    return out;
  }

  private static boolean policy(@Nullable String value, String byDefault, String field) {
    String v = value == null || value.isEmpty() ? byDefault : value;
    if (HONOR.equals(v)) {
      return true;
    }
    if (IGNORE.equals(v)) {
      return false;
    }
    throw new IllegalArgumentException(
        field + ": unsupported value \"" + value + "\": supported values: \"Honor\", \"Ignore\"");
  }

  /** The same constraint counting pods by {@code s} instead. */
  Constraint withSelector(Selector s) {
    return new Constraint(maxSkew, topologyKey, s, minDomains, honorNodeAffinity, honorNodeTaints);
  }

  /**
   * Whether the node is an eligible domain member for the pod under this constraint's node
   * inclusion policies.
   */
  boolean includes(NodeInfo node, PodContext pod) {
    if (honorNodeAffinity && !pod.affinity().matches(node.name(), node.labels())) {
      return false;
    }
    return !honorNodeTaints || !hasUntoleratedTaint(node.taints(), pod.tolerations());
  }

  /** As {@link #includes(NodeInfo, PodContext)}, for a Node object. */
  boolean includes(Node node, PodContext pod) {
    Map<String, String> labels = node.getMetadata().getLabels();
    if (honorNodeAffinity
        && !pod.affinity()
            .matches(node.getMetadata().getName(), labels == null ? Map.of() : labels)) {
      return false;
    }
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    return !honorNodeTaints
        || !hasUntoleratedTaint(taints == null ? List.of() : taints, pod.tolerations());
  }

  /** Only NoSchedule and NoExecute taints count, as for kube's DoNotSchedule taint filter. */
  private static boolean hasUntoleratedTaint(List<Taint> taints, List<Toleration> tolerations) {
    for (Taint t : taints) {
      if (("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
          && !Tolerations.anyTolerates(tolerations, t)) {
        return true;
      }
    }
    return false;
  }

  /** What the inclusion policies read of the incoming pod, taken once per cycle. */
  record PodContext(RequiredNodeAffinity affinity, List<Toleration> tolerations) {
    static PodContext of(Pod pod) {
      return new PodContext(RequiredNodeAffinity.of(pod), Tolerations.of(pod));
    }
  }

  /** Whether {@code labels} hold every constraint's topology key. */
  static boolean hasAllKeys(Map<String, String> labels, List<Constraint> constraints) {
    for (Constraint c : constraints) {
      if (!labels.containsKey(c.topologyKey())) {
        return false;
      }
    }
    return true;
  }
}
