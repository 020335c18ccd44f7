package io.hami.framework.plugins.interpodaffinity;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinity;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.hami.framework.plugins.helper.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The compiled pod affinity and anti-affinity terms of one pod, required and preferred.
 *
 * @param namespace the pod's namespace
 * @param labels the pod's labels
 * @param requiredAffinity required affinity terms (all must hold)
 * @param requiredAntiAffinity required anti-affinity terms (each must hold)
 * @param preferredAffinity preferred affinity terms with their weights
 * @param preferredAntiAffinity preferred anti-affinity terms with their weights
 */
record PodAffinities(
    String namespace,
    Map<String, String> labels,
    ImmutableList<AffinityTerm> requiredAffinity,
    ImmutableList<AffinityTerm> requiredAntiAffinity,
    ImmutableList<AffinityTerm> preferredAffinity,
    ImmutableList<AffinityTerm> preferredAntiAffinity) {

  private static final String AFFINITY = "spec.affinity.podAffinity";
  private static final String ANTI_AFFINITY = "spec.affinity.podAntiAffinity";
  private static final String REQUIRED = ".requiredDuringSchedulingIgnoredDuringExecution";
  private static final String PREFERRED = ".preferredDuringSchedulingIgnoredDuringExecution";

  static String namespaceOf(Pod pod) {
    String ns = pod.getMetadata() == null ? null : pod.getMetadata().getNamespace();
    return ns == null ? "default" : ns;
  }

  static Map<String, String> labelsOf(Pod pod) {
    Map<String, String> l = pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  /** Whether the pod declares any pod affinity or anti-affinity; a cheap test without compiling. */
  static boolean declaresAny(Pod pod) {
    Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
    return a != null && (a.getPodAffinity() != null || a.getPodAntiAffinity() != null);
  }

  /** What compiling one pod gave: its terms and the errors of the terms left out. */
  private record Compiled(PodAffinities terms, ImmutableList<String> errors) {}

  /**
   * Compiled terms by pod object (identity, weakly held). Pods are not mutated once the informer
   * delivers them, and an unchanged pod keeps its object when its node's NodeInfo is rebuilt, so
   * each version of a pod compiles once instead of once per rebuild, PreFilter and PreScore.
   */
  private static final Cache<Pod, Compiled> COMPILED =
      Caffeine.newBuilder().weakKeys().executor(Runnable::run).build();

  /**
   * The terms of {@code pod}, compiled once per pod object. A malformed term is left out and
   * described in {@code errors} (with its field path), so that one bad pod costs only its own
   * terms.
   */
  static PodAffinities of(Pod pod, List<String> errors) {
    Compiled c = COMPILED.get(pod, PodAffinities::compile);
    errors.addAll(c.errors());
    return c.terms();
  }

  private static Compiled compile(Pod pod) {
    List<String> errors = new ArrayList<>();
    return new Compiled(compile(pod, errors), ImmutableList.copyOf(errors));
  }

  private static PodAffinities compile(Pod pod, List<String> errors) {
    String ns = namespaceOf(pod);
    Map<String, String> labels = labelsOf(pod);
    Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
    PodAffinity pa = a == null ? null : a.getPodAffinity();
    PodAntiAffinity anti = a == null ? null : a.getPodAntiAffinity();
    Compiler c = new Compiler(ns, labels, errors);
    return new PodAffinities(
        ns,
        labels,
        c.required(
            pa == null ? null : pa.getRequiredDuringSchedulingIgnoredDuringExecution(),
            AFFINITY + REQUIRED),
        c.required(
            anti == null ? null : anti.getRequiredDuringSchedulingIgnoredDuringExecution(),
            ANTI_AFFINITY + REQUIRED),
        c.preferred(
            pa == null ? null : pa.getPreferredDuringSchedulingIgnoredDuringExecution(),
            AFFINITY + PREFERRED),
        c.preferred(
            anti == null ? null : anti.getPreferredDuringSchedulingIgnoredDuringExecution(),
            ANTI_AFFINITY + PREFERRED));
  }

  private record Compiler(String namespace, Map<String, String> labels, List<String> errors) {
    ImmutableList<AffinityTerm> required(@Nullable List<PodAffinityTerm> terms, String field) {
      if (terms == null || terms.isEmpty()) {
        return ImmutableList.of();
      }
      ImmutableList.Builder<AffinityTerm> b = ImmutableList.builder();
      for (int i = 0; i < terms.size(); i++) {
        PodAffinityTerm t = terms.get(i);
        String f = field + "[" + i + "]";
        if (t == null) {
          errors.add(f + ": must not be null");
          continue;
        }
        try {
          b.add(AffinityTerm.compile(t, namespace, labels, 1, f));
        } catch (IllegalArgumentException e) {
          errors.add(e.getMessage());
        }
      }
      return b.build();
    }

    ImmutableList<AffinityTerm> preferred(
        @Nullable List<WeightedPodAffinityTerm> terms, String field) {
      if (terms == null || terms.isEmpty()) {
        return ImmutableList.of();
      }
      ImmutableList.Builder<AffinityTerm> b = ImmutableList.builder();
      for (int i = 0; i < terms.size(); i++) {
        WeightedPodAffinityTerm t = terms.get(i);
        String f = field + "[" + i + "]";
        if (t == null || t.getPodAffinityTerm() == null) {
          errors.add(f + ".podAffinityTerm: required value");
          continue;
        }
        Integer w = t.getWeight();
        if (w == null || w < 1 || w > 100) {
          errors.add(f + ".weight: invalid value " + w + ": must be in 1..100");
          continue;
        }
        try {
          b.add(
              AffinityTerm.compile(
                  t.getPodAffinityTerm(), namespace, labels, w, f + ".podAffinityTerm"));
        } catch (IllegalArgumentException e) {
          errors.add(e.getMessage());
        }
      }
      return b.build();
    }
  }

  boolean hasRequired() {
    return !requiredAffinity.isEmpty() || !requiredAntiAffinity.isEmpty();
  }

  boolean hasPreferred() {
    return !preferredAffinity.isEmpty() || !preferredAntiAffinity.isEmpty();
  }

  boolean isEmpty() {
    return !hasRequired() && !hasPreferred();
  }

  /** Returns these terms with namespace selectors resolved to namespace names. */
  PodAffinities resolveNamespaces(Function<Selector, Set<String>> namespacesMatching) {
    return new PodAffinities(
        namespace,
        labels,
        resolve(requiredAffinity, namespacesMatching),
        resolve(requiredAntiAffinity, namespacesMatching),
        resolve(preferredAffinity, namespacesMatching),
        resolve(preferredAntiAffinity, namespacesMatching));
  }

  private static ImmutableList<AffinityTerm> resolve(
      ImmutableList<AffinityTerm> terms, Function<Selector, Set<String>> namespacesMatching) {
    boolean any = false;
    for (AffinityTerm t : terms) {
      any |= t.hasNamespaceSelector();
    }
    if (!any) {
      return terms;
    }
    ImmutableList.Builder<AffinityTerm> b = ImmutableList.builderWithExpectedSize(terms.size());
    for (AffinityTerm t : terms) {
      b.add(t.resolveNamespaces(namespacesMatching));
    }
    return b.build();
  }

  /** Whether {@code pod} matches every one of {@code terms} (false for no terms). */
  static boolean matchesAll(
      List<AffinityTerm> terms,
      String namespace,
      Map<String, String> labels,
      @Nullable Map<String, String> namespaceLabels) {
    if (terms.isEmpty()) {
      return false;
    }
    for (int i = 0; i < terms.size(); i++) {
      if (!terms.get(i).matches(namespace, labels, namespaceLabels)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code pod} matches any of {@code terms}. */
  static boolean matchesAny(
      List<AffinityTerm> terms,
      String namespace,
      Map<String, String> labels,
      @Nullable Map<String, String> namespaceLabels) {
    for (int i = 0; i < terms.size(); i++) {
      if (terms.get(i).matches(namespace, labels, namespaceLabels)) {
        return true;
      }
    }
    return false;
  }
}
