package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.local.InMemoryCluster;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A plugin may allow a pod from another thread after its Permit said WAIT and before Permit as a
 * whole returned (the node lock hands a node on from the informer thread); the allow must count.
 */
class PermitAllowRaceTest {

  /** Says WAIT, but allows the pod through the handle first, as a racing thread would. */
  private record AllowsEarly(FrameworkHandle handle) implements PermitPlugin {
    @Override
    public String name() {
      return "AllowsEarly";
    }

    @Override
    public PermitResult permit(CycleState state, Pod pod, String nodeName) {
      handle
          .waitingPod(pod.getMetadata().getUid())
          .orElseThrow(() -> new AssertionError("pod not registered at Permit"))
          .allow(name());
      return PermitResult.waitFor(Duration.ofMinutes(5));
    }
  }

  @Test
  void anAllowDuringPermit_letsThePodBindAtOnce() {
    Registry r = BuiltInPlugins.registry();
    r.register(PluginRegistration.of("AllowsEarly", AllowsEarly::new));
    SchedulerConfiguration cfg =
        new ConfigLoader(r)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n- schedulerName: hami-scheduler\n"
                    + "  plugins:\n    permit:\n      enabled:\n      - name: AllowsEarly\n",
                "test");
    try (InMemoryCluster c = InMemoryCluster.builder(r).config(cfg).build()) {
      c.addNode(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
      c.addPod(MakePod.named("p").obj());
      c.drain();
      assertThat(c.outcome("default", "p").orElseThrow().node()).isEqualTo("n1");
    }
  }

  @Test
  void allowsBeforeSettle_countOnce_pendingOnesStillWait() {
    Pod pod = MakePod.named("p").obj();
    WaitingPodImpl w = new WaitingPodImpl(pod, "n1");
    w.allow("a");
    assertThat(w.pendingPlugins()).isEmpty();
    assertThat(w.deadline()).isEqualTo(Instant.MAX);

    w.settle(Set.of("a", "b"), Instant.EPOCH);

    assertThat(w.result()).isNotDone();
    assertThat(w.pendingPlugins()).containsExactly("b");
    assertThat(w.deadline()).isEqualTo(Instant.EPOCH);
    w.allow("b");
    assertThat(w.result()).isCompleted();
  }
}
