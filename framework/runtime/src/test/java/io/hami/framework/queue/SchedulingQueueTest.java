package io.hami.framework.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.ActionType;
import io.hami.framework.api.ClusterEvent;
import io.hami.framework.api.ClusterEventWithHint;
import io.hami.framework.api.EventResource;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.QueueingHint;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.prioritysort.PrioritySortPlugin;
import io.hami.framework.plugins.schedulinggates.SchedulingGatesPlugin;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchedulingQueueTest {
  private final FakeClock clock = new FakeClock();
  private final List<PreEnqueuePlugin> gates = new ArrayList<>();

  private SchedulingQueue queue(Map<String, List<ClusterEventWithHint>> regs) {
    return new SchedulingQueue(
        new PrioritySortPlugin()::compare,
        pod -> gates,
        regs,
        clock,
        new QueueTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMinutes(5)));
  }

  private static final Map<String, List<ClusterEventWithHint>> FIT_ON_BIG_NODE =
      Map.of(
          "Fit",
          List.of(
              ClusterEventWithHint.of(
                  ClusterEvent.of(EventResource.NODE, ActionType.ADD),
                  (pod, o, n) ->
                      n instanceof Node && "big".equals(n.getMetadata().getName())
                          ? QueueingHint.QUEUE
                          : QueueingHint.SKIP)));

  private static Node node(String name) {
    return MakeNode.named(name).obj();
  }

  @Test
  void pop_ordersByPriorityThenAge() {
    SchedulingQueue q = queue(Map.of());
    q.add(MakePod.named("low").priority(1).obj());
    clock.advance(Duration.ofSeconds(1));
    q.add(MakePod.named("high").priority(10).obj());
    clock.advance(Duration.ofSeconds(1));
    q.add(MakePod.named("low2").priority(1).obj());
    assertThat(q.tryPop().key()).isEqualTo("default/high");
    assertThat(q.tryPop().key()).isEqualTo("default/low");
    assertThat(q.tryPop().key()).isEqualTo("default/low2");
    assertThat(q.tryPop()).isNull();
  }

  @Test
  void podFoundGone_staysOutWhileTheInformerDeliversItsStaleUpdates() {
    SchedulingQueue q = queue(Map.of());
    Pod p = MakePod.named("ghost").obj();
    q.add(p);
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("no room"), List.of());
    q.deleteGone(p);
    assertThat(q.contains(info.uid())).isFalse();

    Pod stale = MakePod.named("ghost").label("touched", "yes").obj();
    q.update(p, stale);
    q.add(stale);
    assertThat(q.contains(info.uid())).isFalse();
    assertThat(q.tryPop()).isNull();

    // Other pods come and go as before.
    q.add(MakePod.named("live").obj());
    assertThat(q.tryPop().key()).isEqualTo("default/live");

    clock.advance(SchedulingQueue.GONE_TTL.plusSeconds(1));
    q.add(stale);
    assertThat(q.contains(info.uid())).as("refused for a bounded time only").isTrue();
  }

  @Test
  void backoff_doublesFromOneSecondToTen() {
    SchedulingQueue q = queue(Map.of());
    assertThat(List.of(1, 2, 3, 4, 5, 6).stream().map(q::backoffDuration).toList())
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8),
            Duration.ofSeconds(10),
            Duration.ofSeconds(10));
  }

  @Test
  void errorFailure_backsOffThenReturnsToActive() {
    SchedulingQueue q = queue(Map.of());
    Pod p = MakePod.named("p").obj();
    q.add(p);
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.error("boom"), List.of());
    assertThat(q.isBackingOff(info.uid())).isTrue();
    clock.advance(Duration.ofMillis(999));
    assertThat(q.flushBackoffCompleted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(q.flushBackoffCompleted()).isEqualTo(1);
    QueuedPodInfo again = q.tryPop();
    assertThat(again.attempts()).isEqualTo(2);
    q.requeue(again, Status.error("boom"), List.of());
    clock.advance(Duration.ofMillis(1999));
    assertThat(q.flushBackoffCompleted()).isZero();
    clock.advance(Duration.ofMillis(1));
    assertThat(q.flushBackoffCompleted()).isEqualTo(1);
  }

  @Test
  void unschedulablePod_requeuedOnlyByEventItsRejectorAccepts() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("Insufficient cpu"), Set.of("Fit"));
    assertThat(q.isUnschedulable(info.uid())).isTrue();

    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("small"));
    assertThat(q.isUnschedulable(info.uid())).isTrue();
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.UPDATE_NODE_LABEL), null, node("big"));
    assertThat(q.isUnschedulable(info.uid())).isTrue();

    clock.advance(Duration.ofSeconds(2));
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    assertThat(q.isActive(info.uid())).isTrue();
  }

  @Test
  void requeuedBeforeBackoffExpiry_waitsInBackoff() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    assertThat(q.isBackingOff(info.uid())).isTrue();
    clock.advance(Duration.ofSeconds(1));
    q.flushBackoffCompleted();
    assertThat(q.isActive(info.uid())).isTrue();
  }

  @Test
  void errorBackoff_isNeverPoppedEarly() {
    SchedulingQueue q = queue(Map.of());
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.error("boom"), List.of());

    assertThat(q.tryPop()).isNull();
    assertThat(q.isBackingOff(info.uid())).isTrue();
  }

  @Test
  void rejectedAtPermit_ignoresTheEventsOfItsWait() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    q.requeueAfterPermit(info, Status.unschedulable("gang released"), Set.of("Fit"));
    assertThat(q.isUnschedulable(info.uid())).isTrue();

    clock.advance(Duration.ofSeconds(2));
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    assertThat(q.isActive(info.uid())).isTrue();
  }

  @Test
  void eventDuringAttempt_sendsFailedPodToBackoffNotUnschedulable() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    assertThat(q.isBackingOff(info.uid())).isTrue();
  }

  @Test
  void irrelevantPodUpdate_doesNotRequeue_relevantOneDoes() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    Pod p = MakePod.named("p").cpu("2").obj();
    q.add(p);
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    clock.advance(Duration.ofSeconds(5));

    Pod statusOnly = MakePod.named("p").cpu("2").resourceVersion("2").phase("Pending").obj();
    statusOnly.getStatus().setMessage("noise");
    q.update(p, statusOnly);
    assertThat(q.isUnschedulable(info.uid())).isTrue();
    assertThat(q.pendingPods()).containsExactly(statusOnly);

    Pod smaller = MakePod.named("p").cpu("1").resourceVersion("3").obj();
    q.update(statusOnly, smaller);
    assertThat(q.isActive(info.uid())).isTrue();
  }

  @Test
  void leftoverFlush_retriesAfterFiveMinutes() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    clock.advance(Duration.ofMinutes(4));
    assertThat(q.flushUnschedulableLeftover()).isZero();
    clock.advance(Duration.ofMinutes(1));
    assertThat(q.flushUnschedulableLeftover()).isEqualTo(1);
    assertThat(q.isActive(info.uid())).isTrue();
  }

  @Test
  void delete_removesFromEverySubQueueAndDropsInFlightPod() {
    SchedulingQueue q = queue(Map.of());
    Pod a = MakePod.named("a").obj();
    Pod b = MakePod.named("b").obj();
    q.add(a);
    q.add(b);
    q.delete(a);
    assertThat(q.contains(a.getMetadata().getUid())).isFalse();
    QueuedPodInfo flying = q.tryPop();
    q.delete(b);
    q.requeue(flying, Status.unschedulable("x"), Set.of());
    assertThat(q.contains(b.getMetadata().getUid())).isFalse();
    assertThat(q.unschedulableSize()).isZero();
  }

  @Test
  void preEnqueueRejection_parksPodUntilActivated() {
    gates.add(
        new PreEnqueuePlugin() {
          @Override
          public String name() {
            return "Gate";
          }

          @Override
          public Status preEnqueue(Pod pod) {
            return pod.getMetadata().getLabels() != null
                    && pod.getMetadata().getLabels().containsKey("open")
                ? Status.success()
                : Status.unschedulable("gated");
          }
        });
    SchedulingQueue q = queue(Map.of());
    Pod closed = MakePod.named("p").obj();
    q.add(closed);
    assertThat(q.isUnschedulable(closed.getMetadata().getUid())).isTrue();
    Pod open = MakePod.named("p").label("open", "yes").obj();
    q.update(closed, open);
    assertThat(q.isActive(closed.getMetadata().getUid())).isTrue();
  }

  @Test
  void gatedPod_staysParkedThroughEventsAndFlushes_andIsActiveAsSoonAsItsLastGateGoes() {
    SchedulingGatesPlugin sg = new SchedulingGatesPlugin();
    gates.add(sg);
    SchedulingQueue q = queue(Map.of(sg.name(), sg.eventsToRegister()));
    Pod gated = MakePod.named("p").schedulingGates("a", "b").obj();
    String uid = gated.getMetadata().getUid();
    q.add(gated);
    assertThat(q.isUnschedulable(uid)).isTrue();

    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("n"));
    clock.advance(Duration.ofMinutes(6));
    q.flushUnschedulableLeftover();
    Pod oneGate = MakePod.named("p").schedulingGates("b").obj();
    q.update(gated, oneGate);
    assertThat(q.isUnschedulable(uid)).isTrue();
    assertThat(q.activeSize()).isZero();

    Pod open = MakePod.named("p").obj();
    q.update(oneGate, open);
    assertThat(q.isActive(uid)).isTrue();
    assertThat(q.tryPop().key()).isEqualTo("default/p");
  }

  @Test
  void activate_skipsBackoff() {
    SchedulingQueue q = queue(Map.of());
    Pod p = MakePod.named("p").obj();
    q.add(p);
    q.requeue(q.tryPop(), Status.error("x"), List.of());
    q.activate(List.of(p));
    assertThat(q.isActive(p.getMetadata().getUid())).isTrue();
  }

  // ---- popping from the backoff queue (kube-scheduler's SchedulerPopFromBackoffQ)

  /**
   * A pod rejected once (Fit) and then moved to the backoff queue by a node event that may help.
   */
  private QueuedPodInfo rejectedThenMovedToBackoff(SchedulingQueue q, Pod pod) {
    q.add(pod);
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    assertThat(q.isBackingOff(info.uid())).isTrue();
    return info;
  }

  @Test
  void idleQueue_popsRejectedPodFromBackoffBeforeItsExpiry() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    QueuedPodInfo info = rejectedThenMovedToBackoff(q, MakePod.named("p").obj());

    QueuedPodInfo again = q.tryPop();
    assertThat(again).isNotNull();
    assertThat(again.key()).isEqualTo("default/p");
    assertThat(again.attempts()).isEqualTo(2);
    assertThat(q.isBackingOff(info.uid())).isFalse();
  }

  @Test
  void activePods_comeBeforeBackoffPods() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    rejectedThenMovedToBackoff(q, MakePod.named("backing").priority(100).obj());
    q.add(MakePod.named("fresh").priority(1).obj());

    assertThat(q.tryPop().key()).isEqualTo("default/fresh");
    assertThat(q.tryPop().key()).isEqualTo("default/backing");
    assertThat(q.tryPop()).isNull();
  }

  @Test
  void backoffPods_ofOneWindow_popInQueueSortOrder() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    Pod low = MakePod.named("low").priority(1).obj();
    Pod high = MakePod.named("high").priority(10).obj();
    q.add(low);
    QueuedPodInfo lowInfo = q.tryPop();
    q.requeue(lowInfo, Status.unschedulable("x"), Set.of("Fit"));
    clock.advance(Duration.ofMillis(300));
    q.add(high);
    QueuedPodInfo highInfo = q.tryPop();
    q.requeue(highInfo, Status.unschedulable("x"), Set.of("Fit"));
    q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
    assertThat(q.backoffSize()).isEqualTo(2);

    // Both backoffs end within the same second: the higher priority goes first.
    assertThat(q.tryPop().key()).isEqualTo("default/high");
    assertThat(q.tryPop().key()).isEqualTo("default/low");
  }

  @Test
  void backoffFlush_movesOnlyExpiredPodsOfTheCurrentWindow() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("early").priority(1).obj());
    QueuedPodInfo early = q.tryPop();
    q.requeue(early, Status.error("boom"), List.of());
    clock.advance(Duration.ofMillis(300));
    q.add(MakePod.named("late").priority(10).obj());
    QueuedPodInfo late = q.tryPop();
    q.requeue(late, Status.error("boom"), List.of());
    assertThat(q.nextBackoffExpiry()).contains(clock.instant().plusMillis(700));

    clock.advance(Duration.ofMillis(700));
    assertThat(q.flushBackoffCompleted()).isEqualTo(1);
    assertThat(q.isActive(early.uid())).isTrue();
    assertThat(q.isBackingOff(late.uid())).isTrue();
    clock.advance(Duration.ofMillis(300));
    assertThat(q.flushBackoffCompleted()).isEqualTo(1);
  }

  @Test
  void waitingPop_wakesWhenARejectedPodEntersBackoff() throws InterruptedException {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    q.add(MakePod.named("p").obj());
    QueuedPodInfo info = q.tryPop();
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));
    Thread event =
        new Thread(
            () ->
                q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big")));
    event.start();

    QueuedPodInfo popped = q.pop(Duration.ofSeconds(30));
    event.join();
    assertThat(popped).isNotNull();
    assertThat(popped.key()).isEqualTo("default/p");
  }

  @Test
  void pod_isNotRequeuedByItsOwnStatusUpdate_norByTheAnnotationsTheSchedulerWrites() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    Pod p = MakePod.named("p").obj();
    q.add(p);
    QueuedPodInfo info = q.tryPop();
    info.markOwnAnnotations(Set.of("hami.io/schedule-explain"));
    q.requeue(info, Status.unschedulable("x"), Set.of("Fit"));

    // The failure's write comes back: condition, nomination, the scheduler's own annotation.
    Pod written =
        MakePod.named("p")
            .resourceVersion("2")
            .annotation("hami.io/schedule-explain", "{\"attempt\":1}")
            .obj();
    written.getStatus().setNominatedNodeName("n1");
    q.update(p, written);
    assertThat(q.isUnschedulable(info.uid())).isTrue();
    assertThat(q.tryPop()).isNull();

    // Someone else's annotation is news about the pod.
    Pod annotated =
        MakePod.named("p")
            .resourceVersion("3")
            .annotation("hami.io/schedule-explain", "{\"attempt\":1}")
            .annotation("team", "ml")
            .obj();
    q.update(written, annotated);
    assertThat(q.tryPop()).isNotNull();
  }

  @Test
  void unschedulablePod_withAStreamOfIrrelevantEvents_isAttemptedABoundedNumberOfTimes() {
    SchedulingQueue q = queue(FIT_ON_BIG_NODE);
    Pod p = MakePod.named("p").obj();
    q.add(p);
    int attempts = 0;
    Pod current = p;
    for (int i = 0; i < 500; i++) {
      QueuedPodInfo info = q.tryPop();
      if (info != null) {
        attempts++;
        // Events during the attempt that cannot help it.
        q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("small"));
        info.markOwnAnnotations(Set.of("hami.io/schedule-explain"));
        q.requeue(info, Status.unschedulable("x " + i), Set.of("Fit"));
      }
      // Its own writes, other nodes, pods elsewhere: a busy cluster around it.
      Pod next =
          MakePod.named("p")
              .resourceVersion(Integer.toString(i + 2))
              .annotation("hami.io/schedule-explain", "attempt " + i)
              .obj();
      q.update(current, next);
      current = next;
      q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("small" + i));
      q.onEvent(
          ClusterEvent.of(EventResource.ASSIGNED_POD, ActionType.ADD),
          null,
          MakePod.named("other" + i).nodeName("n").obj());
      // Once in a while, an event that may help.
      if (i % 100 == 99) {
        q.onEvent(ClusterEvent.of(EventResource.NODE, ActionType.ADD), null, node("big"));
      }
      clock.advance(Duration.ofMillis(100));
      q.flushBackoffCompleted();
    }
    if (q.tryPop() != null) {
      attempts++;
    }
    // The first attempt, then one per helpful event.
    assertThat(attempts).isEqualTo(1 + 5);
  }
}
