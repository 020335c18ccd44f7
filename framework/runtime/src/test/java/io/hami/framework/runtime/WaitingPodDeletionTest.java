package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.PermitResult;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.Status;
import io.hami.framework.bind.Binder;
import io.hami.framework.config.ConfigLoader;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.plugins.BuiltInPlugins;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A pod waiting at Permit is rejected when it, or its node, is deleted: it never binds. */
class WaitingPodDeletionTest {
  private final List<String> unreserved = new CopyOnWriteArrayList<>();
  private final List<String> bound = new CopyOnWriteArrayList<>();

  /** Holds every pod at Permit for an hour. */
  final class Holding implements PermitPlugin, ReservePlugin {
    @Override
    public String name() {
      return "Holding";
    }

    @Override
    public PermitResult permit(CycleState state, Pod pod, String nodeName) {
      return PermitResult.waitFor(Duration.ofHours(1));
    }

    @Override
    public Status reserve(CycleState state, Pod pod, String nodeName) {
      return Status.success();
    }

    @Override
    public void unreserve(CycleState state, Pod pod, String nodeName) {
      unreserved.add(pod.getMetadata().getName() + "@" + nodeName);
    }
  }

  private Scheduler scheduler() {
    Registry registry = BuiltInPlugins.registry();
    registry.register(PluginRegistration.of("Holding", h -> new Holding()));
    SchedulerConfiguration cfg =
        new ConfigLoader(registry)
            .parse(
                "apiVersion: hami.io/v1\nkind: SchedulerConfiguration\nprofiles:\n"
                    + "- schedulerName: hami-scheduler\n  plugins:\n    multiPoint:\n"
                    + "      enabled:\n      - name: Holding\n",
                "test");
    Binder binder =
        (pod, node, metadata) -> {
          bound.add(pod.getMetadata().getName());
          return Status.success();
        };
    return Scheduler.builder(cfg, registry).binder(binder).build();
  }

  @Test
  void aPodDeletedWhileWaitingAtPermit_isRejectedAndUnreserved() {
    Scheduler s = scheduler();
    s.eventHandler().onNodeAdd(MakeNode.named("n1").capacity("8", "16Gi", 110).obj());
    Pod p = MakePod.named("p").uid("u1").cpu("1").obj();
    s.eventHandler().onPodAdd(p);
    assertThat(s.scheduleNext()).isTrue();
    assertThat(s.waitingPod("u1")).isNotNull();

    s.eventHandler().onPodDelete(p);

    assertThat(s.waitingPod("u1")).isNull();
    assertThat(unreserved).containsExactly("p@n1");
    assertThat(bound).isEmpty();
    assertThat(s.cache().isAssumed("u1")).isFalse();
    assertThat(s.queue().contains("u1")).isFalse();
  }

  @Test
  void podsWaitingForADeletedNode_areRejected_othersKeepWaiting() {
    Scheduler s = scheduler();
    Node n1 = MakeNode.named("n1").capacity("1", "16Gi", 110).obj();
    s.eventHandler().onNodeAdd(n1);
    s.eventHandler().onNodeAdd(MakeNode.named("n2").capacity("1", "16Gi", 110).obj());
    s.eventHandler().onPodAdd(MakePod.named("a").uid("ua").cpu("1").obj());
    s.eventHandler().onPodAdd(MakePod.named("b").uid("ub").cpu("1").obj());
    assertThat(s.scheduleNext()).isTrue();
    assertThat(s.scheduleNext()).isTrue();
    WaitingPodImpl a = s.waitingPod("ua");
    WaitingPodImpl b = s.waitingPod("ub");
    assertThat(a).isNotNull();
    assertThat(b).isNotNull();
    String onN1 = a.nodeName().equals("n1") ? "a" : "b";
    String onN2 = onN1.equals("a") ? "b" : "a";

    s.eventHandler().onNodeDelete(n1);

    assertThat(unreserved).containsExactly(onN1 + "@n1");
    assertThat(s.waitingPod("u" + onN1)).isNull();
    assertThat(s.waitingPod("u" + onN2)).isNotNull();
    assertThat(bound).isEmpty();
  }
}
