package io.hami.framework.plugins.interpodaffinity;

import io.fabric8.kubernetes.api.model.Namespace;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.plugins.helper.Selector;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** The namespaces' labels, as terms with a namespace selector read them. */
final class AffinityNamespaces {
  private final ObjectLister<Namespace> namespaces;

  AffinityNamespaces(ObjectLister<Namespace> namespaces) {
    this.namespaces = namespaces;
  }

  /** The labels of {@code namespace}; none when it is unknown. */
  Map<String, String> labels(String namespace) {
    Namespace n = namespaces.get(null, namespace);
    Map<String, String> l =
        n == null || n.getMetadata() == null ? null : n.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  /** The names of the namespaces whose labels {@code selector} matches. */
  Set<String> matching(Selector selector) {
    Set<String> names = new HashSet<>();
    for (Namespace n : namespaces.list()) {
      if (n.getMetadata() == null || n.getMetadata().getName() == null) {
        continue;
      }
      Map<String, String> l = n.getMetadata().getLabels();
      if (selector.matches(l == null ? Map.of() : l)) {
        names.add(n.getMetadata().getName());
      }
    }
    return names;
  }
}
