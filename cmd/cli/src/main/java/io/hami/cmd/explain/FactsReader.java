package io.hami.cmd.explain;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what {@link Explainer} needs, and nothing else: the pod, the nodes it names, the pods
 * holding those nodes' locks, and the pod's Events. Read-only.
 */
final class FactsReader {
  private final KubernetesClient client;

  FactsReader(KubernetesClient client) {
    this.client = client;
  }

  /** The facts, or empty when the pod does not exist. */
  Optional<PodFacts> read(String namespace, String name) {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod == null) {
      return Optional.empty();
    }
    Map<String, Optional<Node>> nodes = new LinkedHashMap<>();
    for (String n : Explainer.nodesToRead(pod).keySet()) {
      nodes.put(n, Optional.ofNullable(client.nodes().withName(n).get()));
    }
    Map<String, Optional<Pod>> holders = new LinkedHashMap<>();
    for (String key : Explainer.holdersToRead(pod, nodes)) {
      int slash = key.indexOf('/');
      holders.put(
          key,
          Optional.ofNullable(
              client
                  .pods()
                  .inNamespace(key.substring(0, slash))
                  .withName(key.substring(slash + 1))
                  .get()));
    }
    return Optional.of(new PodFacts(pod, events(pod), nodes, holders));
  }

  private List<Event> events(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    List<Event> all;
    try {
      all =
          client
              .v1()
              .events()
              .inNamespace(ns)
              .withField("involvedObject.name", name)
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      // A server without that field selector: filter here instead.
      all = client.v1().events().inNamespace(ns).list().getItems();
    }
    String uid = pod.getMetadata().getUid();
    List<Event> out = new ArrayList<>();
    for (Event e : all) {
      var o = e.getInvolvedObject();
      if (o == null
          || !name.equals(o.getName())
          || (o.getKind() != null && !"Pod".equals(o.getKind()))) {
        continue;
      }
      // Events of an earlier pod with the same name carry another uid.
      if (uid != null && o.getUid() != null && !o.getUid().isEmpty() && !uid.equals(o.getUid())) {
        continue;
      }
      out.add(e);
    }
    return out;
  }
}
