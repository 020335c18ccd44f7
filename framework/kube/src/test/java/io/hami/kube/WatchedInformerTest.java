package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Store;
import io.hami.kube.WatchedInformer.Cause;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class WatchedInformerTest {
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final long SECOND = 1_000_000_000L;

  /** A mocked informer whose state the test sets. */
  static final class Fake {
    final SharedIndexInformer<Pod> informer = mock();
    final Store<Pod> store = mock();
    boolean running = true;
    boolean watching = true;
    String version = "10";
    List<Pod> pods = pods(3);

    @SuppressWarnings("unchecked")
    Fake() {
      when(informer.isRunning()).thenAnswer(i -> running);
      when(informer.isWatching()).thenAnswer(i -> watching);
      when(informer.lastSyncResourceVersion()).thenAnswer(i -> version);
      when(informer.getStore()).thenReturn(store);
      when(store.list()).thenAnswer(i -> pods);
      when(store.listKeys())
          .thenAnswer(i -> pods.stream().map(p -> p.getMetadata().getName()).toList());
      when(informer.start()).thenReturn(CompletableFuture.completedFuture(null));
      when(informer.initialState(any(Stream.class))).thenReturn(informer);
      when(informer.exceptionHandler(any())).thenReturn(informer);
    }
  }

  private final Deque<Fake> made = new ArrayDeque<>();
  private final List<String> replaced = new ArrayList<>();
  private final ResourceEventHandler<Pod> handler = Informers.onLatest(p -> {});
  private Supplier<OptionalLong> apiCount = () -> OptionalLong.of(3);

  private WatchedInformer<Pod> watched() {
    Supplier<SharedIndexInformer<Pod>> factory =
        () -> {
          Fake f = new Fake();
          made.add(f);
          return f.informer;
        };
    return new WatchedInformer<>(
        "pods",
        factory,
        List.of(handler),
        () -> apiCount.get(),
        GRACE,
        (name, cause, detail) -> replaced.add(name + " " + cause.label() + ": " + detail));
  }

  static List<Pod> pods(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> new PodBuilder().withNewMetadata().withName("p" + i).endMetadata().build())
        .toList();
  }

  @Test
  void aWatchingInformerThatAgreesWithTheApiServerIsKept() {
    WatchedInformer<Pod> w = watched();
    for (int t = 0; t < 120; t += 5) {
      assertThat(w.check(t * SECOND)).isNull();
    }
    assertThat(made).hasSize(1);
    assertThat(replaced).isEmpty();
  }

  @Test
  void aStoppedInformerIsReplacedAtOnceStartingFromItsObjects() {
    WatchedInformer<Pod> w = watched();
    Fake first = made.getFirst();
    first.running = false;

    assertThat(w.check(0)).isEqualTo(Cause.STOPPED);

    assertThat(made).hasSize(2);
    Fake fresh = made.getLast();
    verify(first.informer).stop();
    @SuppressWarnings("unchecked")
    ArgumentCaptor<Stream<Pod>> initial = ArgumentCaptor.forClass(Stream.class);
    verify(fresh.informer).initialState(initial.capture());
    assertThat(initial.getValue()).containsExactlyElementsOf(first.pods);
    verify(fresh.informer).addEventHandler(handler);
    verify(fresh.informer).exceptionHandler(any());
    verify(fresh.informer).start();
    assertThat(w.replacements()).isEqualTo(1);
    assertThat(replaced).containsExactly("pods stopped: the informer stopped");
    assertThat(w.check(SECOND)).as("the fresh informer runs").isNull();
  }

  @Test
  void theFirstInformerStartsWithoutInitialState() {
    watched();
    verify(made.getFirst().informer, never()).initialState(any());
    verify(made.getFirst().informer).addEventHandler(handler);
  }

  @Test
  void anInformerNotWatchingIsReplacedAfterTheGracePeriod() {
    WatchedInformer<Pod> w = watched();
    made.getFirst().watching = false;

    assertThat(w.check(100 * SECOND)).isNull();
    assertThat(w.check(129 * SECOND)).isNull();
    assertThat(w.check(130 * SECOND)).isEqualTo(Cause.NOT_WATCHING);
    assertThat(replaced).containsExactly("pods not-watching: not watching for PT30S");
  }

  @Test
  void aWatchThatComesBackInTimeResetsTheGracePeriod() {
    WatchedInformer<Pod> w = watched();
    Fake f = made.getFirst();
    f.watching = false;
    assertThat(w.check(0)).isNull();
    f.watching = true;
    assertThat(w.check(20 * SECOND)).isNull();
    f.watching = false;
    assertThat(w.check(25 * SECOND)).isNull();
    assertThat(w.check(50 * SECOND)).as("25 s since it stopped watching again").isNull();
    assertThat(w.check(55 * SECOND)).isEqualTo(Cause.NOT_WATCHING);
  }

  @Test
  void aSilentWatchIsReplacedWhenTheStoreMissesChangesForTheGracePeriod() {
    WatchedInformer<Pod> w = watched();
    apiCount = () -> OptionalLong.of(5);

    assertThat(w.check(0)).isNull();
    assertThat(w.check(29 * SECOND)).isNull();
    assertThat(w.check(30 * SECOND)).isEqualTo(Cause.SILENT);
    assertThat(replaced)
        .singleElement()
        .asString()
        .startsWith("pods silent: the API server holds 5 objects, the informer 3,")
        .contains("resource version 10");
  }

  @Test
  void aStoreBehindAnInformerThatStillReceivesEventsIsKept() {
    WatchedInformer<Pod> w = watched();
    Fake f = made.getFirst();
    apiCount = () -> OptionalLong.of(5);
    for (int t = 0; t <= 120; t += 5) {
      f.version = "v" + t; // events keep arriving; the store catches up on its own
      assertThat(w.check(t * SECOND)).isNull();
    }
  }

  @Test
  void aStoreThatCatchesUpResetsTheSilence() {
    WatchedInformer<Pod> w = watched();
    long[] count = {5};
    apiCount = () -> OptionalLong.of(count[0]);
    assertThat(w.check(0)).isNull();
    count[0] = 3;
    assertThat(w.check(10 * SECOND)).isNull();
    count[0] = 5;
    assertThat(w.check(20 * SECOND)).isNull();
    assertThat(w.check(45 * SECOND)).as("25 s since the new mismatch").isNull();
    assertThat(w.check(50 * SECOND)).isEqualTo(Cause.SILENT);
  }

  @Test
  void anUnknownOrFailedCountDecidesNothing() {
    WatchedInformer<Pod> w = watched();
    apiCount = OptionalLong::empty;
    assertThat(w.check(0)).isNull();
    assertThat(w.check(60 * SECOND)).isNull();
    apiCount =
        () -> {
          throw new IllegalStateException("connection refused");
        };
    assertThat(w.check(120 * SECOND)).isNull();
    assertThat(w.check(180 * SECOND)).isNull();
    assertThat(made).hasSize(1);
  }

  @Test
  void aStoppedWatchedInformerIsNotReplaced() {
    WatchedInformer<Pod> w = watched();
    w.stop();
    made.getFirst().running = false;
    assertThat(w.check(0)).isNull();
    assertThat(made).hasSize(1);
  }

  @Test
  void aGracePeriodMustBePositive() {
    assertThatThrownBy(
            () ->
                new WatchedInformer<Pod>(
                    "pods",
                    () -> new Fake().informer,
                    List.of(),
                    OptionalLong::empty,
                    Duration.ZERO,
                    (n, c, d) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("grace must be positive, was PT0S");
  }
}
