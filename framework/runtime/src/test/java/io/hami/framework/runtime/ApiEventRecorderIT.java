package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ForwardingExecutorService;
import com.google.common.util.concurrent.MoreExecutors;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Event series against fabric8's CRUD mock server, as kube-scheduler's broadcaster forms them. */
@EnableKubernetesMockClient(crud = true)
final class ApiEventRecorderIT {

  KubernetesClient client;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-08-21T08:00:00Z"));
  private final List<String> writes = new ArrayList<>();
  private final Pod pod = MakePod.named("p").uid("u1").obj();

  @AfterEach
  void tearDown() {
    client.v1().events().inAnyNamespace().delete();
  }

  private ApiEventRecorder recorder() {
    return new ApiEventRecorder(
        client,
        MoreExecutors.newDirectExecutorService(),
        clock,
        ApiRateLimiter.unlimited(),
        (verb, resource, outcome) -> writes.add(verb + " " + resource + " " + outcome),
        "hami-scheduler");
  }

  private List<Event> events() {
    List<Event> out =
        new ArrayList<>(client.v1().events().inNamespace("default").list().getItems());
    out.sort(Comparator.comparing(e -> e.getMetadata().getName()));
    return out;
  }

  /** Records the Scheduled Event of pods p0 to p{n-1}. */
  private static void scheduled(EventRecorder r, int n) {
    for (int i = 0; i < n; i++) {
      r.record(
          MakePod.named("p" + i).uid("u" + i).obj(),
          EventRecorder.Type.NORMAL,
          "Scheduled",
          "Binding",
          "Successfully assigned default/p" + i + " to n1");
    }
  }

  private void failed(EventRecorder r, String note) {
    r.record(pod, EventRecorder.Type.WARNING, "FailedScheduling", "Scheduling", note);
  }

  @Test
  void repeatsOfOneEvent_formASeriesWrittenAtTheSecondAndAtEachFlush() {
    ApiEventRecorder r = recorder();
    failed(r, "0/3 nodes are available: 3 Insufficient cpu.");
    assertThat(writes).containsExactly("create events ok");
    assertThat(events()).singleElement().satisfies(e -> assertThat(e.getCount()).isEqualTo(1));

    clock.advance(Duration.ofSeconds(1));
    failed(r, "0/3 nodes are available: 3 Insufficient memory.");
    assertThat(writes).containsExactly("create events ok", "patch events ok");
    assertThat(events()).singleElement().satisfies(e -> assertThat(e.getCount()).isEqualTo(2));

    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(1));
      failed(r, "0/3 nodes are available: 3 Insufficient cpu.");
    }
    assertThat(writes).as("later repeats only count").hasSize(2);
    r.flush();
    assertThat(writes).hasSize(3);
    Event e = events().get(0);
    assertThat(e.getCount()).isEqualTo(7);
    assertThat(e.getLastTimestamp()).isEqualTo(clock.instant().toString());
    // The note stays the first one's, as in a kube-scheduler event series.
    assertThat(e.getMessage()).isEqualTo("0/3 nodes are available: 3 Insufficient cpu.");

    r.flush();
    assertThat(writes).as("nothing new to write").hasSize(3);
  }

  @Test
  void differentReasonsOrObjects_areSeparateEvents() {
    ApiEventRecorder r = recorder();
    failed(r, "no fit");
    r.record(pod, EventRecorder.Type.NORMAL, "Scheduled", "Binding", "Successfully assigned");
    r.record(
        MakePod.named("q").uid("u2").obj(),
        EventRecorder.Type.WARNING,
        "FailedScheduling",
        "Scheduling",
        "no fit");
    assertThat(writes).containsExactly("create events ok", "create events ok", "create events ok");
    assertThat(events()).hasSize(3);
  }

  @Test
  void aSeriesQuietForSixMinutes_isFinished_andTheNextOccurrenceIsANewEvent() {
    ApiEventRecorder r = recorder();
    failed(r, "no fit");
    failed(r, "no fit");
    failed(r, "no fit");
    clock.advance(ApiEventRecorder.FINISH_AFTER.plusSeconds(1));
    r.flush();
    assertThat(writes).as("the final count is written").hasSize(3);
    assertThat(r.seriesCount()).isZero();
    failed(r, "no fit");
    assertThat(events()).hasSize(2);
  }

  @Test
  void aSingleEventPerPod_isOneWrite() {
    ApiEventRecorder r = recorder();
    scheduled(r, 20);
    r.flush();
    assertThat(writes).hasSize(20).containsOnly("create events ok");
  }

  /** Runs each task at once, in the caller, and counts them. */
  private static final class Lane extends ForwardingExecutorService {
    private final ExecutorService direct = MoreExecutors.newDirectExecutorService();
    int ran;

    @Override
    protected ExecutorService delegate() {
      return direct;
    }

    @Override
    public void execute(Runnable command) {
      ran++;
      command.run();
    }
  }

  @Test
  void lanes_spreadABurstOfEvents_andKeepASeriesOnOneLane() {
    Lane a = new Lane();
    Lane b = new Lane();
    ApiEventRecorder r =
        new ApiEventRecorder(
            client,
            List.of(a, b),
            clock,
            ApiRateLimiter.unlimited(),
            (verb, resource, outcome) -> writes.add(verb + " " + resource + " " + outcome),
            "hami-scheduler");
    scheduled(r, 20);
    assertThat(a.ran).isPositive();
    assertThat(b.ran).isPositive();
    assertThat(a.ran + b.ran).isEqualTo(20);

    // A series: its create, the patch at its second occurrence and the flush's all on one lane.
    int beforeA = a.ran;
    int beforeB = b.ran;
    failed(r, "0/3 nodes are available");
    failed(r, "0/4 nodes are available");
    failed(r, "0/5 nodes are available");
    r.flush();
    int onA = a.ran - beforeA;
    int onB = b.ran - beforeB;
    assertThat(List.of(onA, onB)).containsExactlyInAnyOrder(3, 0);
    assertThat(writes)
        .hasSize(23)
        .endsWith("create events ok", "patch events ok", "patch events ok");
    assertThat(events()).hasSize(21);
  }

  @Test
  void noLanes_isRefused() {
    assertThatThrownBy(
            () ->
                new ApiEventRecorder(
                    client,
                    List.of(),
                    clock,
                    ApiRateLimiter.unlimited(),
                    (verb, resource, outcome) -> {},
                    "hami-scheduler"))
        .hasMessage("at least one event writer lane is needed");
  }

  @Test
  void aCreateThatLandedBeforeItsAnswerWasLost_isRecorded_notCountedAsAFailure() {
    // The client's retry of a create whose answer was lost finds the Event it wrote.
    String name = "p." + Long.toHexString(clock.millis()) + Long.toHexString(1);
    client
        .v1()
        .events()
        .inNamespace("default")
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withReason("FailedScheduling")
                .withCount(1)
                .build())
        .create();
    ApiEventRecorder r = recorder();

    failed(r, "no fit");

    assertThat(writes).containsExactly("create events ok");
    assertThat(events())
        .singleElement()
        .satisfies(e -> assertThat(e.getMetadata().getName()).isEqualTo(name));
  }
}
