package io.hami.framework.runtime;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.bind.ApiRequestObserver;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts core/v1 Events on its own writer lanes, aggregated as kube-scheduler's event broadcaster
 * does ({@code k8s.io/client-go/tools/events}): Events that differ only in their note (same object,
 * type, reason and action) form a series. The first is created; the second patches its {@code
 * count} at once; later ones only count, and {@link #flush} (every 30 s) writes each changed count
 * and forgets series quiet for {@link #FINISH_AFTER}. A pod that fails the same way every attempt
 * thus costs one Event create and a patch per flush, not a write per attempt.
 *
 * <p>Events are best effort: when the queue is full or the rate limit would block for long, they
 * are dropped rather than slowing the scheduler.
 *
 * <p>Concurrency: {@link #record} may be called from any thread; the series cache is guarded by
 * this recorder's lock, and writes run on the lanes.
 */
public final class ApiEventRecorder implements EventRecorder {
  /** A series with no new occurrence for this long is finished and forgotten. */
  static final Duration FINISH_AFTER = Duration.ofMinutes(6);

  /** How often {@link #flush} should run. */
  public static final Duration FLUSH_EVERY = Duration.ofSeconds(30);

  /** The most series remembered; the oldest is written out and forgotten beyond it. */
  static final int MAX_SERIES = 4096;

  private static final Logger log = LoggerFactory.getLogger(ApiEventRecorder.class);

  private final KubernetesClient client;
  private final List<ExecutorService> lanes;
  private final InstantSource clock;
  private final ApiRateLimiter limiter;
  private final ApiRequestObserver observer;
  private final String component;
  private final AtomicLong seq = new AtomicLong();

  @GuardedBy("this")
  private final LinkedHashMap<SeriesKey, Series> series = new LinkedHashMap<>(256, 0.75f, true);

  public ApiEventRecorder(
      KubernetesClient client,
      ExecutorService executor,
      InstantSource clock,
      ApiRateLimiter limiter,
      ApiRequestObserver observer,
      String component) {
    this(client, List.of(executor), clock, limiter, observer, component);
  }

  /**
   * @param lanes the executors that write, each in order: an Event's create and its count patches
   *     go to one lane (chosen by the Event's name), so a burst of Events is written in parallel,
   *     as the broadcaster writes each in its own goroutine, and a series' writes stay in order
   */
  public ApiEventRecorder(
      KubernetesClient client,
      List<ExecutorService> lanes,
      InstantSource clock,
      ApiRateLimiter limiter,
      ApiRequestObserver observer,
      String component) {
    if (lanes.isEmpty()) {
      throw new IllegalArgumentException("at least one event writer lane is needed");
    }
    this.client = client;
    this.lanes = List.copyOf(lanes);
    this.clock = clock;
    this.limiter = limiter;
    this.observer = observer;
    this.component = component;
  }

  /** What makes two Events one series: everything but the note and the times. */
  private record SeriesKey(
      String namespace,
      String kind,
      String name,
      @Nullable String uid,
      String type,
      String reason,
      String action) {}

  /** A created Event and its occurrences since. */
  private static final class Series {
    final String namespace;
    final String name;
    int count = 1;
    int written = 1;
    Instant last;

    Series(String namespace, String name, Instant last) {
      this.namespace = namespace;
      this.name = name;
      this.last = last;
    }
  }

  /** A count to write: the Event's name, namespace, count and last occurrence. */
  private record CountWrite(String namespace, String name, int count, Instant last) {}

  @Override
  public void record(HasMetadata regarding, Type type, String reason, String action, String note) {
    Event event = newEvent(regarding, type, reason, action, note);
    Instant now = clock.instant();
    SeriesKey key =
        new SeriesKey(
            event.getMetadata().getNamespace(),
            String.valueOf(regarding.getKind()),
            String.valueOf(regarding.getMetadata().getName()),
            regarding.getMetadata().getUid(),
            type.value(),
            reason,
            action);
    List<CountWrite> counts = new ArrayList<>(1);
    boolean created = false;
    synchronized (this) {
      Series s = series.get(key);
      if (s != null && !now.isAfter(s.last.plus(FINISH_AFTER))) {
        s.count++;
        s.last = now;
        if (s.written == 1) {
          // The second occurrence turns the Event into a series at once, as the broadcaster does.
          s.written = s.count;
          counts.add(new CountWrite(s.namespace, s.name, s.count, now));
        }
      } else {
        series.put(key, new Series(key.namespace(), event.getMetadata().getName(), now));
        created = true;
        CountWrite evicted = evictEldest();
        if (evicted != null) {
          counts.add(evicted);
        }
      }
    }
    if (created) {
      submit(event.getMetadata().getName(), () -> create(event), reason);
    }
    for (CountWrite c : counts) {
      submit(c.name(), () -> patchCount(c), reason);
    }
  }

  /**
   * Writes the count of every series that grew since its last write, and forgets series finished
   * (quiet for {@link #FINISH_AFTER}). Call it every {@link #FLUSH_EVERY}; safe from any thread.
   */
  public void flush() {
    Instant now = clock.instant();
    List<CountWrite> writes = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Series> it = series.values().iterator(); it.hasNext(); ) {
        Series s = it.next();
        if (s.count != s.written) {
          s.written = s.count;
          writes.add(new CountWrite(s.namespace, s.name, s.count, s.last));
        }
        if (now.isAfter(s.last.plus(FINISH_AFTER))) {
          it.remove();
        }
      }
    }
    for (CountWrite w : writes) {
      submit(w.name(), () -> patchCount(w), "series");
    }
  }

  /** The number of series remembered (for tests). */
  synchronized int seriesCount() {
    return series.size();
  }

  @GuardedBy("this")
  private @Nullable CountWrite evictEldest() {
    if (series.size() <= MAX_SERIES) {
      return null;
    }
    Iterator<Series> it = series.values().iterator();
    Series eldest = it.next();
    it.remove();
    return eldest.count == eldest.written
        ? null
        : new CountWrite(eldest.namespace, eldest.name, eldest.count, eldest.last);
  }

  /** Runs {@code write} on the lane of the Event named {@code eventName}. */
  private void submit(String eventName, Runnable write, String reason) {
    try {
      lanes
          .get(Math.floorMod(eventName.hashCode(), lanes.size()))
          .execute(
              () -> {
                try {
                  limiter.acquire();
                  write.run();
                } catch (InterruptedException ex) {
                  Thread.currentThread().interrupt();
                }
              });
    } catch (RejectedExecutionException ex) {
      log.debug("event queue full; dropping event reason={}", reason);
    }
  }

  private Event newEvent(
      HasMetadata regarding, Type type, String reason, String action, String note) {
    String ns =
        regarding.getMetadata().getNamespace() == null
            ? "default"
            : regarding.getMetadata().getNamespace();
    String now = clock.instant().toString();
    return new EventBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(
            regarding.getMetadata().getName()
                + "."
                + Long.toHexString(clock.millis())
                + Long.toHexString(seq.incrementAndGet()))
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(regarding.getApiVersion())
        .withKind(regarding.getKind())
        .withName(regarding.getMetadata().getName())
        .withNamespace(regarding.getMetadata().getNamespace())
        .withUid(regarding.getMetadata().getUid())
        .endInvolvedObject()
        .withType(type.value())
        .withReason(reason)
        .withAction(action)
        .withMessage(note)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withReportingComponent(component)
        .withNewSource()
        .withComponent(component)
        .endSource()
        .build();
  }

  /**
   * Creates {@code e}. Its name is this recorder's own (object, clock, sequence), so a 409 means an
   * earlier attempt of this very create landed and only its answer was lost (the client retried
   * it): the Event is there, once.
   */
  private void create(Event e) {
    write(
        "create",
        () -> {
          try {
            client.v1().events().inNamespace(e.getMetadata().getNamespace()).resource(e).create();
          } catch (KubernetesClientException ex) {
            if (ex.getCode() != 409) {
              throw ex;
            }
            log.debug("event already created name={}", e.getMetadata().getName());
          }
        });
  }

  private void patchCount(CountWrite w) {
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("count", w.count());
    patch.put("lastTimestamp", w.last().toString());
    String json = client.getKubernetesSerialization().asJson(patch);
    write(
        "patch",
        () ->
            client
                .v1()
                .events()
                .inNamespace(w.namespace())
                .withName(w.name())
                .patch(PatchContext.of(PatchType.JSON_MERGE), json));
  }

  private void write(String verb, Runnable call) {
    try {
      call.run();
      observer.request(verb, "events", "ok");
    } catch (KubernetesClientException ex) {
      observer.request(verb, "events", String.valueOf(ex.getCode()));
      log.debug("event not recorded: {}", ex.getMessage());
    } catch (RuntimeException ex) {
      // A closed client (the scheduler stopping): the Event is lost, the thread lives on.
      observer.request(verb, "events", "error");
      log.debug("event not recorded: {}", ex.toString());
    }
  }
}
