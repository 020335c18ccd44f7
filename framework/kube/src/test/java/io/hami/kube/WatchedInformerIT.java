package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.hami.kube.WatchedInformer.Cause;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class WatchedInformerIT {
  KubernetesClient client;

  private final List<SharedIndexInformer<Pod>> made = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private WatchedInformer<Pod> watched;

  @AfterEach
  void stop() {
    if (watched != null) {
      watched.stop();
    }
  }

  private static Pod pod(String name, String version) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withLabels(Map.of("v", version))
        .endMetadata()
        .build();
  }

  private static String describe(Pod p) {
    return p.getMetadata().getName() + "@" + p.getMetadata().getLabels().get("v");
  }

  @Test
  void aReplacementReachesTheHandlersAsARelistWould() throws Exception {
    client.pods().resource(pod("a", "1")).create();
    client.pods().resource(pod("b", "1")).create();
    ResourceEventHandler<Pod> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod p) {
            events.add("add " + describe(p));
          }

          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            events.add("update " + describe(oldPod) + " -> " + describe(newPod));
          }

          @Override
          public void onDelete(Pod p, boolean finalStateUnknown) {
            events.add(
                "delete " + describe(p) + (finalStateUnknown ? " (final state unknown)" : ""));
          }
        };
    List<String> replaced = new CopyOnWriteArrayList<>();
    watched =
        new WatchedInformer<>(
            "pods",
            () -> {
              SharedIndexInformer<Pod> i = client.pods().inAnyNamespace().runnableInformer(0);
              made.add(i);
              return i;
            },
            List.of(handler),
            WatchedInformer.countOf(client.pods().inAnyNamespace()),
            Duration.ofSeconds(30),
            (name, cause, detail) -> replaced.add(name + " " + cause.label()));
    watched.start().get(10, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 2);
    assertThat(events).containsExactlyInAnyOrder("add a@1", "add b@1");

    // The informer dies; meanwhile a changes, b goes and c comes.
    made.get(0).stop();
    client.pods().resource(pod("a", "2")).update();
    client.pods().inNamespace("default").withName("b").delete();
    client.pods().resource(pod("c", "1")).create();
    events.clear();

    assertThat(watched.check(System.nanoTime())).isEqualTo(Cause.STOPPED);

    await().atMost(Duration.ofSeconds(10)).until(() -> events.size() >= 3);
    assertThat(events)
        .containsExactlyInAnyOrder(
            "update a@1 -> a@2", "delete b@1 (final state unknown)", "add c@1");
    assertThat(replaced).containsExactly("pods stopped");
    assertThat(watched.store().listKeys()).containsExactlyInAnyOrder("default/a", "default/c");

    // The replacement watches: later changes arrive as usual.
    events.clear();
    client.pods().resource(pod("d", "1")).create();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("add d@1"));
    assertThat(watched.check(System.nanoTime())).isNull();
  }

  @Test
  void theCountProbeCountsWhatTheServerLists() {
    for (String name : List.of("a", "b", "c")) {
      client.pods().resource(pod(name, "1")).create();
    }
    assertThat(WatchedInformer.countOf(client.pods().inAnyNamespace()).get()).hasValue(3);
    assertThat(WatchedInformer.countOf(client.nodes()).get()).hasValue(0);
  }
}
