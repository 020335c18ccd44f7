package io.hami.framework.plugins.nodeaffinity;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A pod's hard node constraints: {@code spec.nodeSelector} (all must match) and the required
 * node-affinity terms (any term; every expression of a term). Malformed expressions (a {@code Gt}
 * with a non-integer value, an unknown operator) never match. Equal when the selector and the terms
 * are.
 */
public final class RequiredNodeAffinity {
  private final Map<String, String> nodeSelector;
  private final @Nullable List<NodeSelectorTerm> terms;

  private RequiredNodeAffinity(
      Map<String, String> nodeSelector, @Nullable List<NodeSelectorTerm> terms) {
    this.nodeSelector = nodeSelector;
    this.terms = terms;
  }

  public static RequiredNodeAffinity of(Pod pod) {
    Map<String, String> sel = pod.getSpec() == null ? null : pod.getSpec().getNodeSelector();
    List<NodeSelectorTerm> terms = null;
    if (pod.getSpec() != null && pod.getSpec().getAffinity() != null) {
      NodeAffinity na = pod.getSpec().getAffinity().getNodeAffinity();
      if (na != null) {
        NodeSelector ns = na.getRequiredDuringSchedulingIgnoredDuringExecution();
        if (ns != null && ns.getNodeSelectorTerms() != null) {
          terms = ns.getNodeSelectorTerms();
        }
      }
    }
    return new RequiredNodeAffinity(sel == null ? Map.of() : sel, terms);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof RequiredNodeAffinity r
        && nodeSelector.equals(r.nodeSelector)
        && Objects.equals(terms, r.terms);
  }

  @Override
  public int hashCode() {
    return 31 * nodeSelector.hashCode() + Objects.hashCode(terms);
  }

  public boolean isEmpty() {
    return nodeSelector.isEmpty() && terms == null;
  }

  /** The node names that required terms restrict the pod to via {@code metadata.name}, or null. */
  public @Nullable List<String> nodeNames() {
    if (terms == null || terms.size() != 1) {
      return null;
    }
    NodeSelectorTerm t = terms.get(0);
    if (t.getMatchFields() == null) {
      return null;
    }
    for (NodeSelectorRequirement r : t.getMatchFields()) {
      if ("metadata.name".equals(r.getKey())
          && "In".equals(r.getOperator())
          && r.getValues() != null) {
        return r.getValues();
      }
    }
    return null;
  }

  public boolean matches(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return matches(node.getMetadata().getName(), labels == null ? Map.of() : labels);
  }

  /** Whether a node with this name and these labels satisfies the constraints. */
  public boolean matches(String nodeName, Map<String, String> labels) {
    for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    if (terms == null) {
      return true;
    }
    return anyTermMatches(terms, nodeName, labels);
  }

  public static boolean anyTermMatches(
      List<NodeSelectorTerm> terms, String nodeName, Map<String, String> labels) {
    for (NodeSelectorTerm t : terms) {
      if (termMatches(t, nodeName, labels)) {
        return true;
      }
    }
    return false;
  }

  /** A term with no requirements matches nothing, as in Kubernetes. */
  static boolean termMatches(NodeSelectorTerm t, String nodeName, Map<String, String> labels) {
    List<NodeSelectorRequirement> exprs = t.getMatchExpressions();
    List<NodeSelectorRequirement> fields = t.getMatchFields();
    boolean noExprs = exprs == null || exprs.isEmpty();
    boolean noFields = fields == null || fields.isEmpty();
    if (noExprs && noFields) {
      return false;
    }
    if (!noExprs) {
      for (NodeSelectorRequirement r : exprs) {
        if (!requirementMatches(r, labels.get(r.getKey()), labels.containsKey(r.getKey()))) {
          return false;
        }
      }
    }
    if (!noFields) {
      for (NodeSelectorRequirement r : fields) {
        if (!"metadata.name".equals(r.getKey())) {
          return false;
        }
        if (!requirementMatches(r, nodeName, true)) {
          return false;
        }
      }
    }
    return true;
  }

  static boolean requirementMatches(
      NodeSelectorRequirement r, @Nullable String value, boolean present) {
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator() == null ? "" : r.getOperator();
    return switch (op) {
      case "In" -> present && values.contains(value);
      case "NotIn" -> !present || !values.contains(value);
      case "Exists" -> present;
      case "DoesNotExist" -> !present;
      case "Gt", "Lt" -> present && values.size() == 1 && compares(op, value, values.get(0));
      default -> false;
    };
  }

  private static boolean compares(String op, @Nullable String value, String bound) {
    try {
      long have = Long.parseLong(value);
      long want = Long.parseLong(bound);
      return "Gt".equals(op) ? have > want : have < want;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
