package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An {@link Error} on the scheduling thread or a binding thread is fatal, and reported. */
class SchedulerFatalErrorTest {
  private final ExecutorService binding = Executors.newSingleThreadExecutor();
  private final List<Throwable> fatal = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    binding.shutdownNow();
  }

  /** Throws an {@link Error} from Filter or PreBind, as its name says. */
  record Crashing(String name, String at) implements FilterPlugin, PreBindPlugin {
    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo node) {
      if (at.equals("Filter")) {
        throw new AssertionError("broken filter");
      }
      return Status.success();
    }

    @Override
    public Status preBind(CycleState state, Pod pod, String nodeName) {
      if (at.equals("PreBind")) {
        throw new StackOverflowError("broken prebind");
      }
      return Status.success();
    }
  }

  private Scheduler scheduler(String at) {
    Registry registry = BuiltInPlugins.registry();
    registry.register(PluginRegistration.of("Crashing", h -> new Crashing("Crashing", at)));
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                    + "- schedulerName: hami-scheduler\n  plugins:\n    multiPoint:\n"
                    + "      enabled:\n      - name: Crashing\n",
                "test");
    Scheduler s = Scheduler.builder(cfg, registry).bindingExecutor(binding).build();
    s.onFatal(fatal::add);
    s.eventHandler().onNodeAdd(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
    return s;
  }

  @Test
  void anErrorInACycle_endsTheLoopAndIsReported() throws Exception {
    Scheduler s = scheduler("Filter");
    s.eventHandler().onPodAdd(MakePod.named("p").uid("u1").obj());
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread loop =
        new Thread(
            () -> {
              try {
                s.run();
              } catch (Throwable t) {
                thrown.set(t);
              }
            });
    loop.start();
    loop.join(10_000);

    assertThat(loop.isAlive()).isFalse();
    assertThat(thrown.get()).isInstanceOf(AssertionError.class).hasMessage("broken filter");
    assertThat(fatal).containsExactly(thrown.get());
    assertThat(s.running()).isFalse();
  }

  @Test
  void anErrorOnABindingThread_isReported() {
    Scheduler s = scheduler("PreBind");
    s.eventHandler().onPodAdd(MakePod.named("p").uid("u1").obj());

    assertThat(s.scheduleNext()).isTrue();

    // The binding thread rethrows the Error once reported; Awaitility would otherwise fail the
    // wait that happens to be polling then.
    await()
        .dontCatchUncaughtExceptions()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !fatal.isEmpty());
    assertThat(fatal.get(0)).isInstanceOf(StackOverflowError.class);
    await()
        .dontCatchUncaughtExceptions()
        .atMost(Duration.ofSeconds(10))
        .until(() -> s.bindingsInFlight() == 0);
  }

  @Test
  void theHeartbeat_advancesWhileTheLoopWaitsForPods() throws Exception {
    Scheduler s = scheduler("none");
    Thread loop = new Thread(s::run);
    loop.start();
    try {
      await().atMost(Duration.ofSeconds(5)).until(s::running);
      Instant first = s.heartbeat();
      await().atMost(Duration.ofSeconds(5)).until(() -> s.heartbeat().isAfter(first));
    } finally {
      loop.interrupt();
      loop.join(5_000);
    }
    assertThat(s.running()).isFalse();
    assertThat(fatal).isEmpty();
  }
}
