package io.hami.framework.plugins.interpodaffinity;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.hami.framework.plugins.helper.Selector;
import io.hami.framework.plugins.helper.Selector.Op;
import io.hami.framework.plugins.helper.Selector.Requirement;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A compiled pod (anti-)affinity term of one pod, its owner: which pods it selects (label selector
 * with the owner's {@code matchLabelKeys}/{@code mismatchLabelKeys} merged in, as kube-apiserver
 * does), in which namespaces, over which topology key, and its weight (1 for required terms).
 */
final class AffinityTerm {
  private final ImmutableSet<String> namespaces;
  private final boolean allNamespaces;
  private final @Nullable Selector namespaceSelector;
  private final Selector selector;
  private final String topologyKey;
  private final int weight;
  private final int hash;

  private AffinityTerm(
      ImmutableSet<String> namespaces,
      boolean allNamespaces,
      @Nullable Selector namespaceSelector,
      Selector selector,
      String topologyKey,
      int weight) {
    this.namespaces = namespaces;
    this.allNamespaces = allNamespaces;
    this.namespaceSelector = namespaceSelector;
    this.selector = selector;
    this.topologyKey = topologyKey;
    this.weight = weight;
    this.hash =
        Objects.hash(namespaces, allNamespaces, namespaceSelector, selector, topologyKey, weight);
  }

  /**
   * Compiles {@code term} of a pod in {@code ownerNamespace} labelled {@code ownerLabels}.
   *
   * @param field the term's path, for error messages
   * @throws IllegalArgumentException naming the field when the term is malformed
   */
  static AffinityTerm compile(
      PodAffinityTerm term,
      String ownerNamespace,
      Map<String, String> ownerLabels,
      int weight,
      String field) {
    String key = term.getTopologyKey();
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(field + ".topologyKey: required value");
    }
    ImmutableList.Builder<Requirement> extra = ImmutableList.builder();
    if (term.getLabelSelector() != null) {
      // A null selector matches nothing; kube-apiserver merges the keys only into a non-null one.
      addKeys(extra, term.getMatchLabelKeys(), ownerLabels, Op.IN);
      addKeys(extra, term.getMismatchLabelKeys(), ownerLabels, Op.NOT_IN);
    }
    Selector selector =
        Selector.of(term.getLabelSelector(), field + ".labelSelector")
            .and(Selector.of(extra.build()));
    Selector nsSelector =
        term.getNamespaceSelector() == null
            ? null
            : Selector.of(term.getNamespaceSelector(), field + ".namespaceSelector");
    List<String> names = term.getNamespaces();
    ImmutableSet<String> namespaces = names == null ? ImmutableSet.of() : nonNull(names);
    boolean all = nsSelector != null && nsSelector.isEmpty();
    if (namespaces.isEmpty() && nsSelector == null) {
      namespaces = ImmutableSet.of(ownerNamespace);
    }
    return new AffinityTerm(namespaces, all, all ? null : nsSelector, selector, key, weight);
  }

  private static ImmutableSet<String> nonNull(List<String> names) {
    ImmutableSet.Builder<String> b = ImmutableSet.builder();
    for (String n : names) {
      if (n != null) {
        b.add(n);
      }
    }
    return b.build();
  }

  private static void addKeys(
      ImmutableList.Builder<Requirement> out,
      @Nullable List<String> keys,
      Map<String, String> ownerLabels,
      Op op) {
    if (keys == null) {
      return;
    }
    for (String k : keys) {
      String v = k == null ? null : ownerLabels.get(k);
      if (v != null) {
        out.add(Requirement.of(k, op, v));
      }
    }
  }

  /**
   * Returns this term with its namespace selector replaced by the names of the namespaces it
   * selects, so that matching needs no namespace labels (done for the incoming pod's terms).
   */
  AffinityTerm resolveNamespaces(Function<Selector, Set<String>> namespacesMatching) {
    Selector s = namespaceSelector;
    if (s == null) {
      return this;
    }
    ImmutableSet<String> merged =
        ImmutableSet.<String>builder()
            .addAll(namespaces)
            .addAll(namespacesMatching.apply(s))
            .build();
    return new AffinityTerm(merged, allNamespaces, null, selector, topologyKey, weight);
  }

  /**
   * Whether this term selects a pod.
   *
   * @param namespace the pod's namespace
   * @param labels the pod's labels
   * @param namespaceLabels the labels of the pod's namespace; null when the term's namespace
   *     selector was resolved
   */
  boolean matches(
      String namespace, Map<String, String> labels, @Nullable Map<String, String> namespaceLabels) {
    boolean inNamespace =
        allNamespaces
            || namespaces.contains(namespace)
            || (namespaceSelector != null
                && namespaceLabels != null
                && namespaceSelector.matches(namespaceLabels));
    return inNamespace && selector.matches(labels);
  }

  String topologyKey() {
    return topologyKey;
  }

  int weight() {
    return weight;
  }

  /** Whether this term has an unresolved, non-empty namespace selector. */
  boolean hasNamespaceSelector() {
    return namespaceSelector != null;
  }

  /** Equal terms select the same pods over the same key with the same weight. */
  @Override
  public boolean equals(@Nullable Object o) {
    return o == this
        || (o instanceof AffinityTerm t
            && hash == t.hash
            && weight == t.weight
            && allNamespaces == t.allNamespaces
            && topologyKey.equals(t.topologyKey)
            && namespaces.equals(t.namespaces)
            && Objects.equals(namespaceSelector, t.namespaceSelector)
            && selector.equals(t.selector));
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
