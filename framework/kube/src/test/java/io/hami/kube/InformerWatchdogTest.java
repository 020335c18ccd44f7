package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.verify;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class InformerWatchdogTest {
  private final List<WatchedInformerTest.Fake> made = new CopyOnWriteArrayList<>();
  private final List<String> replaced = new CopyOnWriteArrayList<>();

  private WatchedInformer<Pod> watched(String name) {
    return new WatchedInformer<>(
        name,
        () -> {
          WatchedInformerTest.Fake f = new WatchedInformerTest.Fake();
          made.add(f);
          return f.informer;
        },
        List.of(),
        () -> OptionalLong.of(3),
        Duration.ofSeconds(30),
        (n, cause, detail) -> replaced.add(n + " " + cause.label()));
  }

  @Test
  void replacesAStoppedInformerOnItsThreadAndStopsAllWhenClosed() {
    InformerWatchdog w = new InformerWatchdog("test-watchdog");
    w.add(watched("pods"));
    w.add(watched("nodes"));
    assertThat(w.running()).isEqualTo(2);

    made.get(0).running = false;
    assertThat(w.running()).isEqualTo(1);
    w.start(Duration.ofMillis(20));
    await().atMost(Duration.ofSeconds(5)).until(() -> replaced.contains("pods stopped"));
    assertThat(w.running()).isEqualTo(2);
    assertThat(replaced).containsExactly("pods stopped");

    w.close();
    verify(made.get(1).informer).stop();
    verify(made.get(2).informer).stop();
    assertThatThrownBy(() -> w.start(Duration.ofMillis(20)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("closed");
  }

  @Test
  void startsOnce() {
    try (InformerWatchdog w = new InformerWatchdog("test-watchdog")) {
      w.start(Duration.ofSeconds(1));
      assertThatThrownBy(() -> w.start(Duration.ofSeconds(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("already started");
    }
  }
}
