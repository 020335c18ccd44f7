package io.hami.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.GpuNode;
import io.hami.cmd.cluster.Invariants;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The end of every GPU scenario. */
final class Teardown {
  private Teardown() {}

  /**
   * Checks the invariants on the given nodes from annotations alone, then deletes the namespace's
   * pods and stops the nodes, also when the check fails.
   */
  static void checkInvariantsAndStop(KubernetesClient client, String namespace, List<GpuNode> nodes)
      throws Exception {
    try {
      Set<String> names = new HashSet<>();
      nodes.forEach(n -> names.add(n.name()));
      assertThat(Invariants.check(client, names)).as("invariants on %s", names).isEmpty();
    } finally {
      client.pods().inNamespace(namespace).withGracePeriod(0).delete();
      for (GpuNode n : nodes) {
        n.close();
      }
      nodes.clear();
    }
  }
}
