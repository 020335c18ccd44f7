package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.testing.MakePod;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The condition write against fabric8's mock server: one request carries condition and record. (The
 * CRUD mock drops metadata from status patches, unlike the API server, so the request itself is
 * inspected.)
 */
@EnableKubernetesMockClient
class ApiStatusWriterIT {
  private static final String RECORD = "example.io/attempt-record";

  private static final String POD = "/api/v1/namespaces/default/pods/p";
  private static final String STATUS = POD + "/status";

  KubernetesClient client;
  KubernetesMockServer server;

  private final List<String> requests = new ArrayList<>();

  /** A writer that writes on the calling thread. */
  private ApiStatusWriter writer() {
    return writer(new DirectExecutor());
  }

  /** A writer on {@code executor}, its requests' outcomes recorded in {@link #requests}. */
  private ApiStatusWriter writer(ExecutorService executor) {
    return new ApiStatusWriter(
        client,
        executor,
        InstantSource.fixed(Instant.parse("2026-11-29T13:53:11Z")),
        ApiRateLimiter.unlimited(),
        (verb, resource, outcome) -> requests.add(verb + " " + resource + " " + outcome));
  }

  @Test
  void conditionAndAnnotations_goInOnePatchOfTheStatusSubresource() throws Exception {
    Pod pod = MakePod.named("p").obj();
    expectPatch(pod);

    writer()
        .podUnschedulable(
            pod,
            "Unschedulable",
            "0/1 nodes are available: 1 CardInsufficientMemory.",
            Map.of(RECORD, "{\"v\":1}"));

    assertThat(requests).containsExactly("patch pods/status ok");
    assertThat(writes())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getMethod()).isEqualTo("PATCH");
              assertThat(w.getPath()).isEqualTo(STATUS);
              assertThat(w.getHeader("Content-Type"))
                  .startsWith("application/strategic-merge-patch+json");
              assertThat(w.getUtf8Body())
                  .startsWith(
                      "{\"metadata\":{\"annotations\":{\"" + RECORD + "\":\"{\\\"v\\\":1}\"}}")
                  .contains(
                      "\"type\":\"PodScheduled\"",
                      "\"reason\":\"Unschedulable\"",
                      "\"message\":\"0/1 nodes are available: 1 CardInsufficientMemory.\"");
            });
  }

  @Test
  void withoutAnnotations_thePatchLeavesMetadataAlone() throws Exception {
    Pod pod = MakePod.named("p").obj();
    expectPatch(pod);

    writer().podUnschedulable(pod, "SchedulerError", "boom");

    assertThat(writes())
        .singleElement()
        .satisfies(
            w ->
                assertThat(w.getUtf8Body())
                    .doesNotContain("metadata")
                    .contains("\"reason\":\"SchedulerError\""));
  }

  @Test
  void writesOfOnePodWaitingBehindOthers_goAsOneMergedPatch() throws Exception {
    Pod pod = MakePod.named("p").obj();
    expectPatch(pod);
    HeldExecutor held = new HeldExecutor();
    ApiStatusWriter w = writer(held);

    w.podUnschedulable(pod, "Unschedulable", "first", Map.of(RECORD, "1"), "n1");
    w.podUnschedulable(pod, "Unschedulable", "second", Map.of(RECORD, "2"), null);
    w.podUnschedulable(pod, "Unschedulable", "third", Map.of(RECORD, "3"), null);
    held.runAll();

    assertThat(requests).containsExactly("patch pods/status ok");
    assertThat(writes())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getUtf8Body())
                    .contains("\"message\":\"third\"", "\"nominatedNodeName\":\"n1\"")
                    .contains("\"" + RECORD + "\":\"3\"")
                    .doesNotContain("first", "second"));
  }

  @Test
  void eachWrite_tellsWhetherTheApiTookIt_soALostOneIsWrittenAgain() throws Exception {
    Pod pod = MakePod.named("p").obj();
    expectPatch(pod);
    // Forbidden is not retried by the client: the write is lost at once.
    server.expect().patch().withPath(STATUS).andReturn(403, "").once();
    ApiStatusWriter w = writer();

    boolean taken =
        w.podUnschedulable(pod, "Unschedulable", "first", Map.of(), null)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    boolean refused =
        w.podUnschedulable(pod, "Unschedulable", "second", Map.of(), null)
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);

    assertThat(taken).isTrue();
    assertThat(refused).isFalse();
    assertThat(requests).containsExactly("patch pods/status ok", "patch pods/status 403");
  }

  @Test
  void writesMergedIntoOne_shareItsOutcome_andAFullQueueLosesTheWrite() throws Exception {
    Pod pod = MakePod.named("p").obj();
    expectPatch(pod);
    HeldExecutor held = new HeldExecutor();
    ApiStatusWriter w = writer(held);
    var first = w.podUnschedulable(pod, "Unschedulable", "first", Map.of(), null);
    var second = w.podUnschedulable(pod, "Unschedulable", "second", Map.of(), null);
    held.runAll();
    ApiStatusWriter full = writer(new RejectingExecutor());

    var dropped = full.podUnschedulable(pod, "Unschedulable", "third", Map.of(), null);

    assertThat(first.toCompletableFuture().getNow(null)).isTrue();
    assertThat(second.toCompletableFuture().getNow(null)).isTrue();
    assertThat(dropped.toCompletableFuture().getNow(null)).isFalse();
    assertThat(requests).containsExactly("patch pods/status ok");
  }

  @Test
  void merge_composesMergePatches_laterFieldsWin_nestedMapsMerge() {
    Map<String, Object> nomination = new java.util.HashMap<>();
    nomination.put("nominatedNodeName", null);
    Map<String, Object> merged =
        ApiStatusWriter.merge(
            Map.of("status", Map.of("nominatedNodeName", "n1", "conditions", List.of("a"))),
            Map.of("status", nomination, "metadata", Map.of("annotations", Map.of("k", "v"))));
    Map<String, Object> status = new java.util.HashMap<>();
    status.put("nominatedNodeName", null);
    status.put("conditions", List.of("a"));
    assertThat(merged)
        .isEqualTo(Map.of("status", status, "metadata", Map.of("annotations", Map.of("k", "v"))));
  }

  @Test
  void thePatch_namesOnlyPodScheduled_soOtherConditionsAreLeftToTheServer() throws Exception {
    Pod pod = withConditions(gate(), unschedulableSince("2026-11-29T13:00:00Z"));
    expectPatch(pod);

    writer().podUnschedulable(pod, "Unschedulable", "again");

    assertThat(writes())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.getHeader("Content-Type"))
                  .startsWith("application/strategic-merge-patch+json");
              assertThat(w.getUtf8Body())
                  .doesNotContain("example.io/Gate")
                  .contains("\"type\":\"PodScheduled\"", "\"message\":\"again\"")
                  // Still False: the transition time stays.
                  .contains("\"lastTransitionTime\":\"2026-11-29T13:00:00Z\"");
            });
  }

  @Test
  void aServerThatRefusesStrategicMerge_getsAMergePatchWithTheOtherConditions() throws Exception {
    Pod pod = withConditions(gate());
    server.expect().patch().withPath(STATUS).andReturn(415, "").once();
    expectPatch(pod);
    expectPatch(pod);
    ApiStatusWriter w = writer();

    w.podUnschedulable(pod, "Unschedulable", "first");
    w.podUnschedulable(pod, "Unschedulable", "second");

    assertThat(writes())
        .extracting(r -> r.getHeader("Content-Type").replaceAll(";.*", ""))
        .containsExactly(
            "application/strategic-merge-patch+json",
            "application/merge-patch+json",
            "application/merge-patch+json");
    assertThat(requests).containsExactly("patch pods/status ok", "patch pods/status ok");
  }

  @Test
  void aConflict_isWrittenAgainAgainstThePodAsReRead() throws Exception {
    Pod pod = MakePod.named("p").obj();
    // Meanwhile an earlier attempt's condition reached the pod: its transition time stays.
    Pod reread = withConditions(gate(), unschedulableSince("2026-11-29T13:00:00Z"));
    server.expect().patch().withPath(STATUS).andReturn(409, "").once();
    server.expect().get().withPath(POD).andReturn(200, reread).once();
    expectPatch(reread);

    boolean taken = written(writer(), pod, "again");

    assertThat(taken).isTrue();
    assertThat(requests)
        .containsExactly("patch pods/status 409", "get pods ok", "patch pods/status ok");
    List<RecordedRequest> sent = writes();
    assertThat(sent)
        .extracting(RecordedRequest::getMethod)
        .containsExactly("PATCH", "GET", "PATCH");
    assertThat(sent.get(0).getUtf8Body())
        .contains("\"lastTransitionTime\":\"2026-11-29T13:53:11Z\"");
    assertThat(sent.get(2).getUtf8Body())
        .contains("\"message\":\"again\"", "\"lastTransitionTime\":\"2026-11-29T13:00:00Z\"");
  }

  @Test
  void conflictsWithoutEnd_stopAfterTheBound() throws Exception {
    Pod pod = MakePod.named("p").obj();
    server.expect().patch().withPath(STATUS).andReturn(409, "").always();
    server.expect().get().withPath(POD).andReturn(200, pod).always();

    boolean taken = written(writer(), pod, "again");

    assertThat(taken).isFalse();
    assertThat(requests.stream().filter(r -> r.startsWith("patch")))
        .hasSize(ApiStatusWriter.CONFLICT_ATTEMPTS)
        .containsOnly("patch pods/status 409");
  }

  @Test
  void aConflict_withThePodBoundMeanwhile_isNotWrittenAgain() throws Exception {
    Pod pod = MakePod.named("p").obj();
    Pod bound = new PodBuilder(pod).editSpec().withNodeName("n1").endSpec().build();
    server.expect().patch().withPath(STATUS).andReturn(409, "").once();
    server.expect().get().withPath(POD).andReturn(200, bound).once();

    boolean taken = written(writer(), pod, "again");

    assertThat(taken).isFalse();
    assertThat(requests).containsExactly("patch pods/status 409", "get pods ok");
  }

  /** Writes PodScheduled=False with {@code message}; whether the API took the write. */
  private static boolean written(ApiStatusWriter w, Pod pod, String message) throws Exception {
    return w.podUnschedulable(pod, "Unschedulable", message, Map.of(), null)
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private void expectPatch(Pod pod) {
    server.expect().patch().withPath(STATUS).andReturn(200, pod).once();
  }

  private static PodCondition gate() {
    return new PodConditionBuilder().withType("example.io/Gate").withStatus("True").build();
  }

  private static PodCondition unschedulableSince(String time) {
    return new PodConditionBuilder()
        .withType("PodScheduled")
        .withStatus("False")
        .withLastTransitionTime(time)
        .build();
  }

  private static Pod withConditions(PodCondition... conditions) {
    return new PodBuilder(MakePod.named("p").obj())
        .withNewStatus()
        .addToConditions(conditions)
        .endStatus()
        .build();
  }

  /** The requests sent so far: the patch alone, no read before it. */
  private List<RecordedRequest> writes() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    for (int i = server.getRequestCount(); i > 0; i--) {
      out.add(server.takeRequest());
    }
    return out;
  }

  /** Holds each write until {@link #runAll}, as a busy writer thread would. */
  private static final class HeldExecutor extends DirectExecutor {
    private final List<Runnable> held = new ArrayList<>();

    @Override
    public void execute(Runnable r) {
      held.add(r);
    }

    void runAll() {
      held.forEach(Runnable::run);
      held.clear();
    }
  }

  /** A writer queue that is full. */
  private static final class RejectingExecutor extends DirectExecutor {
    @Override
    public void execute(Runnable r) {
      throw new RejectedExecutionException("full");
    }
  }

  /** Runs each write on the calling thread. */
  private static class DirectExecutor extends AbstractExecutorService {
    @Override
    public void execute(Runnable r) {
      r.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
