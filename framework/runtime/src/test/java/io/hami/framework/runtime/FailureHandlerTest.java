package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FailedAttempt;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A failed attempt's condition carries what the profile's attempt observers ask for. */
class FailureHandlerTest {
  private static final String KEY = "example.io/attempt";

  /** One condition write. */
  record Write(String reason, String message, Map<String, String> annotations) {}

  /** Rejects every node; its factory registers an observer that keeps and sums up the attempt. */
  static final class Full implements FilterPlugin {
    static final List<FailedAttempt> SEEN = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return "Full";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      return Status.unschedulable("node is full");
    }
  }

  /**
   * Records every write; each answers the next of {@code taken} (whether the API took it), true
   * once they run out.
   */
  private static StatusWriter recording(List<Write> writes, Deque<Boolean> taken) {
    return new StatusWriter() {
      @Override
      public void podUnschedulable(Pod pod, String reason, String message) {
        var unused = podUnschedulable(pod, reason, message, Map.of(), null);
      }

      @Override
      public CompletionStage<Boolean> podUnschedulable(
          Pod pod,
          String reason,
          String message,
          Map<String, String> annotations,
          @Nullable String nominatedNodeName) {
        writes.add(new Write(reason, message, annotations));
        Boolean next = taken.poll();
        return CompletableFuture.completedFuture(next == null || next);
      }
    };
  }

  private static Scheduler scheduler(String profileYaml, List<Write> writes) {
    Registry registry = BuiltInPlugins.registry();
    registry.register(
        PluginRegistration.of(
            "Full",
            handle -> {
              handle.addAttemptObserver(
                  a -> {
                    Full.SEEN.add(a);
                    var d = a.diagnosis();
                    return Map.of(
                        KEY, d.reasons().get(0).reason() + " x" + d.reasons().get(0).nodes());
                  });
              return new Full();
            }));
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse("apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n" + profileYaml, "test");
    return Scheduler.builder(cfg, registry)
        .statusWriter(
            new StatusWriter() {
              @Override
              public void podUnschedulable(Pod pod, String reason, String message) {
                podUnschedulable(pod, reason, message, Map.of());
              }

              @Override
              public void podUnschedulable(
                  Pod pod, String reason, String message, Map<String, String> annotations) {
                writes.add(new Write(reason, message, annotations));
              }
            })
        .build();
  }

  @Test
  void aFilterFailure_writesTheObserversAnnotationsWithTheCondition() {
    Full.SEEN.clear();
    List<Write> writes = new CopyOnWriteArrayList<>();
    Scheduler s =
        scheduler(
            "profiles:\n- schedulerName: hami-scheduler\n  plugins:\n    multiPoint:\n"
                + "      enabled:\n      - name: Full\n",
            writes);
    s.eventHandler().onNodeAdd(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
    s.eventHandler().onNodeAdd(MakeNode.named("n2").capacity("8", "16Gi", 110).obj());
    s.eventHandler().onPodAdd(MakePod.named("p").uid("u1").obj());

    assertThat(s.scheduleNext()).isTrue();

    assertThat(writes)
        .containsExactly(
            new Write(
                "Unschedulable",
                // DefaultPreemption's verdict follows Filter's, worded as kube-scheduler does.
                "0/2 nodes are available: 2 node is full. preemption: 0/2 nodes are available: 2"
                    + " No preemption victims found for incoming pod..",
                Map.of(KEY, "node is full x2")));
    FailedAttempt seen = Full.SEEN.get(0);
    assertThat(seen.pod().getMetadata().getName()).isEqualTo("p");
    assertThat(seen.diagnosis().nodes()).isEqualTo(2);
    assertThat(seen.diagnosis().closest())
        .extracting(FailedAttempt.NodeReasons::node)
        .containsExactly("n1", "n2");
  }

  @Test
  void aProfileWithoutObservers_writesNoAnnotations() {
    List<Write> writes = new CopyOnWriteArrayList<>();
    Scheduler s = scheduler("profiles:\n- schedulerName: hami-scheduler\n", writes);
    s.eventHandler().onPodAdd(MakePod.named("p").uid("u1").obj());

    assertThat(s.scheduleNext()).isTrue();

    assertThat(writes)
        .containsExactly(
            new Write(
                "Unschedulable",
                "0/0 nodes are available: no nodes available to schedule pods.",
                Map.of()));
  }

  /**
   * A pod fails three times with the same message; the API takes or loses each condition write as
   * {@code taken} says. A write the API took is not repeated; a lost one is, message unchanged.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "every write taken, true, 1",
    "first write lost, false, 2",
    "first two lost, false false, 3",
  })
  void aLostConditionWrite_isWrittenAgain_atTheNextFailureWithTheSameMessage(
      String name, String taken, int wantWrites) {
    List<Write> writes = new CopyOnWriteArrayList<>();
    Deque<Boolean> answers = new ArrayDeque<>();
    for (String t : taken.split(" ")) {
      answers.add(Boolean.parseBoolean(t));
    }
    Registry registry = BuiltInPlugins.registry();
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n"
                    + "profiles:\n- schedulerName: hami-scheduler\n",
                "test");
    Scheduler s = Scheduler.builder(cfg, registry).statusWriter(recording(writes, answers)).build();
    Pod pod = MakePod.named("p").uid("u1").obj();
    s.eventHandler().onPodAdd(pod);

    for (int attempt = 0; attempt < 3; attempt++) {
      s.queue().activate(List.of(pod));
      assertThat(s.scheduleNext()).isTrue();
    }

    assertThat(writes)
        .hasSize(wantWrites)
        .extracting(Write::message)
        .containsOnly("0/0 nodes are available: no nodes available to schedule pods.");
  }

  @Test
  void aBindingFailure_isDiagnosedWithTheNodesOfItsOwnCycle_notTheSnapshotsNext() {
    List<Write> writes = new CopyOnWriteArrayList<>();
    List<Runnable> bindings = new ArrayList<>();
    Registry registry = BuiltInPlugins.registry();
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\n"
                    + "profiles:\n- schedulerName: hami-scheduler\n",
                "test");
    Scheduler s =
        Scheduler.builder(cfg, registry)
            .bindingExecutor(bindings::add)
            .binder((Pod pod, String node, BindingMetadata m) -> Status.error("apiserver down"))
            .statusWriter(
                new StatusWriter() {
                  @Override
                  public void podUnschedulable(Pod pod, String reason, String message) {
                    podUnschedulable(pod, reason, message, Map.of());
                  }

                  @Override
                  public void podUnschedulable(
                      Pod pod, String reason, String message, Map<String, String> annotations) {
                    writes.add(new Write(reason, message, annotations));
                  }
                })
            .build();
    List<FailedAttempt> seen = new CopyOnWriteArrayList<>();
    s.addAttemptObserver(
        "hami-scheduler",
        a -> {
          seen.add(a);
          return Map.of();
        });
    s.eventHandler().onNodeAdd(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
    s.eventHandler().onNodeAdd(MakeNode.named("n2").capacity("8", "16Gi", 110).obj());
    s.eventHandler().onPodAdd(MakePod.named("p").uid("u1").obj());
    assertThat(s.scheduleNext()).isTrue();
    // The scheduling thread moves on to a cluster of three nodes before the binding runs.
    s.eventHandler().onNodeAdd(MakeNode.named("n3").capacity("8", "16Gi", 110).obj());
    s.eventHandler().onPodAdd(MakePod.named("q").uid("u2").obj());
    assertThat(s.scheduleNext()).isTrue();

    bindings.get(0).run();

    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).diagnosis().nodes()).isEqualTo(2);
    assertThat(writes).hasSize(1);
    assertThat(writes.get(0).message()).contains("apiserver down");
  }
}
