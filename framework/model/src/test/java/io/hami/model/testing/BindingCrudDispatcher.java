package io.hami.model.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * The CRUD mock server's dispatcher, applying a Binding as the API server does: within the request
 * that posts it. On its own the mock stores a Binding as an object of its own and answers a second
 * one with AlreadyExists, so a client whose first answer was lost and who reads the pod back would
 * find it unbound. Here the pod gets {@code spec.nodeName} and the Binding's annotations and labels
 * before the answer leaves, and a Binding for a pod that is bound already, or whose UID differs, is
 * refused with 409 Conflict, as the API server refuses it.
 *
 * <p>Concurrency: bindings are applied one at a time (the read of the pod and its patch must not
 * interleave with another binding of the same pod); every other request goes to the CRUD dispatcher
 * as it comes. The listener runs on the server's thread, under that order, and must not block.
 */
public final class BindingCrudDispatcher extends KubernetesCrudDispatcher {

  /** Told what happened to each Binding posted. */
  public interface Listener {
    /** {@code binding} was applied to its pod. */
    void bound(Binding binding);

    /** {@code binding} was refused: its pod is bound to {@code node} already. */
    void refused(Binding binding, String node);
  }

  /** A listener that keeps what it is told, for tests to assert on. */
  public static final class Recorder implements Listener {
    private final List<Binding> bound = new CopyOnWriteArrayList<>();
    private final List<String> told = new CopyOnWriteArrayList<>();

    @Override
    public void bound(Binding b) {
      bound.add(b);
      told.add("bound " + b.getMetadata().getName());
    }

    @Override
    public void refused(Binding b, String node) {
      told.add("refused " + b.getMetadata().getName() + " on " + node);
    }

    /** The Bindings applied, in order. */
    public List<Binding> bound() {
      return List.copyOf(bound);
    }

    /** {@code bound p} and {@code refused p on n1}, in order. */
    public List<String> told() {
      return List.copyOf(told);
    }
  }

  private final KubernetesSerialization json = new KubernetesSerialization();
  private final Listener listener;

  /** The server's expectations ({@code server.expect()}, {@code setVersionInfo}). */
  private final Map<ServerRequest, Queue<ServerResponse>> responses;

  private final MockDispatcher expectations;

  /**
   * @param responses the server's expectations, answered before anything else, as fabric8's mixed
   *     dispatcher answers them
   */
  public BindingCrudDispatcher(
      Listener listener, Map<ServerRequest, Queue<ServerResponse>> responses) {
    this.listener = listener;
    this.responses = responses;
    this.expectations = new MockDispatcher(responses);
  }

  /** A started server, a client of it and what its Bindings did; {@link #close} stops both. */
  public record Served(KubernetesMockServer server, KubernetesClient client, Recorder recorder)
      implements AutoCloseable {
    @Override
    public void close() {
      client.close();
      server.destroy();
    }
  }

  /** Starts a CRUD mock server with this dispatcher, recording into a new {@link Recorder}. */
  public static Served serve() {
    Recorder recorder = new Recorder();
    KubernetesMockServer server = start(recorder);
    return new Served(server, server.createClient(), recorder);
  }

  /** A CRUD mock server with this dispatcher, started; the caller destroys it. */
  public static KubernetesMockServer start(Listener listener) {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            responses,
            new BindingCrudDispatcher(listener, responses),
            false);
    server.init();
    return server;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    Queue<ServerResponse> expected =
        responses.get(
            new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
    if (expected != null && !expected.isEmpty()) {
      return expectations.dispatch(request);
    }
    if (request.method() == HttpMethod.POST) {
      ApiPath path = ApiPath.parse(request.getPath());
      boolean all = "bindings".equals(path.resource()) && path.name() == null;
      if (path.namespace() != null && (all || path.is("pods", "binding"))) {
        Binding b = json.unmarshal(request.getUtf8Body(), Binding.class);
        return bind(path.namespace(), b);
      }
    }
    return super.dispatch(request);
  }

  private synchronized MockResponse bind(String ns, Binding b) {
    String name = b.getMetadata().getName();
    String podPath = "/api/v1/namespaces/" + ns + "/pods/" + name;
    MockResponse got = super.dispatch(request(HttpMethod.GET, podPath, null, ""));
    if (got.code() == 404) {
      return status(404, "NotFound", "pods \"" + name + "\" not found");
    }
    Pod pod = json.unmarshal(got.getBody().readUtf8(), Pod.class);
    String uid = b.getMetadata().getUid();
    if (uid != null && !uid.equals(pod.getMetadata().getUid())) {
      return status(
          409,
          "Conflict",
          "Precondition failed: UID in precondition: "
              + uid
              + ", UID in object meta: "
              + pod.getMetadata().getUid());
    }
    String node = pod.getSpec().getNodeName();
    if (node != null && !node.isEmpty()) {
      listener.refused(b, node);
      return status(
          409,
          "Conflict",
          "Operation cannot be fulfilled on pods/binding \""
              + name
              + "\": pod "
              + name
              + " is already assigned to node \""
              + node
              + "\"");
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put(
        "annotations", Objects.requireNonNullElse(b.getMetadata().getAnnotations(), Map.of()));
    metadata.put("labels", Objects.requireNonNullElse(b.getMetadata().getLabels(), Map.of()));
    Map<String, Object> patch =
        Map.of("metadata", metadata, "spec", Map.of("nodeName", b.getTarget().getName()));
    MockResponse patched =
        super.dispatch(
            request(HttpMethod.PATCH, podPath, "application/merge-patch+json", json.asJson(patch)));
    if (patched.code() >= 300) {
      return patched;
    }
    listener.bound(b);
    return new MockResponse().setResponseCode(201).setBody(json.asJson(b));
  }

  private static RecordedRequest request(
      HttpMethod method, String path, @Nullable String type, String body) {
    Headers.Builder h = Headers.builder();
    if (type != null) {
      h.add("Content-Type", type);
    }
    return new RecordedRequest(
        "HTTP/1.1", method, path, h.build(), new Buffer(body.getBytes(UTF_8)));
  }

  private static MockResponse status(int code, String reason, String message) {
    String body = HttpWire.status(code, reason, message);
    return new MockResponse().setResponseCode(code).setBody(body);
  }
}
