package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.Status;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/** The scheduling thread waits while the configured number of bindings is queued or running. */
class BindingBackpressureTest {

  @Test
  void schedulingWaitsForRoomInTheBindingPipeline() throws Exception {
    SchedulerConfiguration cfg =
        new ConfigLoader(BuiltInPlugins.registry())
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n- schedulerName: hami-scheduler\n",
                "test");
    BlockingQueue<Runnable> bindings = new LinkedBlockingQueue<>();
    List<String> bound = new CopyOnWriteArrayList<>();
    Scheduler s =
        Scheduler.builder(cfg, BuiltInPlugins.registry())
            .bindingExecutor(bindings::add)
            .binder(
                (Pod pod, String node, BindingMetadata metadata) -> {
                  bound.add(pod.getMetadata().getName());
                  return Status.success();
                })
            .maxBindingsInFlight(2)
            .build();
    s.eventHandler().onNodeAdd(MakeNode.named("n1").capacity("64", "256Gi", 110).obj());
    for (int i = 0; i < 5; i++) {
      s.eventHandler().onPodAdd(MakePod.named("p" + i).uid("u" + i).obj());
    }
    Thread loop = new Thread(s::run, "scheduling-loop");
    loop.setDaemon(true);
    loop.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> bindings.size() == 2);
      // Room for two: the other three pods stay in the queue until a binding finishes.
      Thread.sleep(200);
      assertThat(bindings).hasSize(2);
      assertThat(s.bindingsInFlight()).isEqualTo(2);

      bindings.take().run();
      await().atMost(Duration.ofSeconds(10)).until(() -> bindings.size() == 2);
      assertThat(bound).hasSize(1);

      while (bound.size() < 5) {
        bindings.take().run();
      }
      assertThat(bound).containsExactlyInAnyOrder("p0", "p1", "p2", "p3", "p4");
      await().atMost(Duration.ofSeconds(10)).until(() -> s.bindingsInFlight() == 0);
    } finally {
      loop.interrupt();
      loop.join(5000);
    }
  }
}
