package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.bind.ApiRateLimiter;
import io.hami.framework.bind.ApiRequestObserver;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts core/v1 Events on its own executor. Events are best effort: when the queue is full or the
 * rate limit would block for long, they are dropped rather than slowing the scheduler.
 */
public final class ApiEventRecorder implements EventRecorder {
  private static final Logger log = LoggerFactory.getLogger(ApiEventRecorder.class);

  private final KubernetesClient client;
  private final ExecutorService executor;
  private final InstantSource clock;
  private final ApiRateLimiter limiter;
  private final ApiRequestObserver observer;
  private final String component;
  private final AtomicLong seq = new AtomicLong();

  public ApiEventRecorder(
      KubernetesClient client,
      ExecutorService executor,
      InstantSource clock,
      ApiRateLimiter limiter,
      ApiRequestObserver observer,
      String component) {
    this.client = client;
    this.executor = executor;
    this.clock = clock;
    this.limiter = limiter;
    this.observer = observer;
    this.component = component;
  }

  @Override
  public void record(HasMetadata regarding, Type type, String reason, String action, String note) {
    String ns =
        regarding.getMetadata().getNamespace() == null
            ? "default"
            : regarding.getMetadata().getNamespace();
    String now = clock.instant().toString();
    Event e =
        new EventBuilder()
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
    try {
      executor.execute(
          () -> {
            try {
              limiter.acquire();
              client.v1().events().inNamespace(ns).resource(e).create();
              observer.request("create", "events", "ok");
            } catch (KubernetesClientException ex) {
              observer.request("create", "events", String.valueOf(ex.getCode()));
              log.debug("event not recorded: {}", ex.getMessage());
            } catch (InterruptedException ex) {
              Thread.currentThread().interrupt();
            } catch (RuntimeException ex) {
              // A closed client (the scheduler stopping): the Event is lost, the thread lives on.
              observer.request("create", "events", "error");
              log.debug("event not recorded: {}", ex.toString());
            }
          });
    } catch (RejectedExecutionException ex) {
      log.debug("event queue full; dropping event reason={}", reason);
    }
  }
}
