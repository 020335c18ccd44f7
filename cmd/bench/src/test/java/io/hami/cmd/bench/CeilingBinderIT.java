package io.hami.cmd.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hami.model.Annotations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The API ceiling's writes per pod against fabric8's CRUD mock server: the node lock and the
 * binding in lock mode {@code node}, the binding alone in lock mode {@code scheduler}.
 */
@EnableKubernetesMockClient(crud = true)
final class CeilingBinderIT {
  private static final String NS = "hami-bench";
  private static final Workload.Shape SHAPE = new Workload.Shape("fractional", 1, 1, 1, 4096, 25);

  KubernetesClient client;
  KubernetesMockServer server;

  /** Requests taken from the server so far: its count covers its whole life. */
  private int taken;

  private void node(String name, @Nullable String lock) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    if (lock != null) {
      b.editMetadata().withAnnotations(Map.of(Annotations.MUTEX_LOCK, lock)).endMetadata();
    }
    client.nodes().resource(b.build()).create();
  }

  /** Binds one pod through a binder over {@code nodes} and returns the requests it made. */
  private List<String> bindOne(List<String> nodes, boolean lockFree) throws Exception {
    var pod = client.pods().resource(BenchPods.pod(NS, "ceiling-0", "ceiling", SHAPE)).create();
    drain();
    try (CeilingBinder binder = new CeilingBinder(client, nodes, 8, 1, lockFree)) {
      binder.offer(pod);
    }
    return drain();
  }

  private List<String> drain() throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (; taken < server.getRequestCount(); taken++) {
      RecordedRequest r = server.takeRequest();
      out.add(r.getMethod() + " " + r.getPath().replaceFirst("\\?.*", ""));
    }
    return out;
  }

  private @Nullable String lockOf(String node) {
    Node n = client.nodes().withName(node).get();
    Map<String, String> a = n.getMetadata().getAnnotations();
    return a == null ? null : a.get(Annotations.MUTEX_LOCK);
  }

  @Test
  void lockModeNode_takesTheNodeLockThenBinds() throws Exception {
    node("n1", null);
    List<String> requests = bindOne(List.of("n1"), false);

    assertThat(requests)
        .containsExactly(
            "GET /api/v1/nodes/n1",
            "PATCH /api/v1/nodes/n1",
            "POST /api/v1/namespaces/" + NS + "/bindings");
    assertThat(lockOf("n1")).endsWith("," + NS + ",ceiling-0");
  }

  @Test
  void lockModeNode_skipsANodeWhoseLockIsHeld() throws Exception {
    node("n1", "2026-12-05T07:00:00Z,other,pod");
    node("n2", null);
    List<String> requests = bindOne(List.of("n1", "n2"), false);

    assertThat(requests)
        .containsExactly(
            "GET /api/v1/nodes/n1",
            "GET /api/v1/nodes/n2",
            "PATCH /api/v1/nodes/n2",
            "POST /api/v1/namespaces/" + NS + "/bindings");
    assertThat(lockOf("n1")).isEqualTo("2026-12-05T07:00:00Z,other,pod");
  }

  @Test
  void lockModeScheduler_bindsWithoutTouchingTheNode() throws Exception {
    node("n1", null);
    List<String> requests = bindOne(List.of("n1"), true);

    assertThat(requests).containsExactly("POST /api/v1/namespaces/" + NS + "/bindings");
    assertThat(lockOf("n1")).isNull();
  }
}
