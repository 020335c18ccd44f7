package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Listable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.framework.api.ObjectKind;
import io.hami.kube.InformerWatchdog;
import io.hami.kube.Informers;
import io.hami.kube.WatchedInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's informers: nodes, pods and the kinds plugins list, feeding the scheduler's {@link
 * ClusterEventHandler}. Each is replaced when its watch is lost (see {@link WatchedInformer});
 * {@code hami_scheduler_informer_replacements_total} counts the replacements.
 */
final class ClusterInformers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterInformers.class);

  /** How often each informer's watch is checked. */
  static final Duration CHECK = Duration.ofSeconds(5);

  /** How long an informer may stay not watching, or silent, before it is replaced. */
  static final Duration GRACE = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final Scheduler scheduler;
  private final InformerWatchdog watchdog = new InformerWatchdog("hami-informer-watchdog");
  private final AtomicLong nodeAdds = new AtomicLong();
  private final AtomicLong podAdds = new AtomicLong();

  ClusterInformers(KubernetesClient client, Scheduler scheduler) {
    this.client = client;
    this.scheduler = scheduler;
  }

  /** The informers started and still running (a replaced one counts once). */
  int running() {
    return watchdog.running();
  }

  private <T extends HasMetadata> WatchedInformer<T> watched(
      String name,
      Supplier<SharedIndexInformer<T>> factory,
      Listable<? extends KubernetesResourceList<?>> lister,
      ResourceEventHandler<T> handler) {
    WatchedInformer<T> w =
        new WatchedInformer<>(
            name,
            factory,
            List.of(handler),
            WatchedInformer.countOf(lister),
            GRACE,
            (n, cause, detail) -> scheduler.metrics().informerReplaced(n, cause.label()));
    return watchdog.add(w);
  }

  /**
   * Starts the informers, waits up to {@code syncTimeout} until their handlers have seen the
   * initial listing, then checks them every {@link #CHECK}.
   *
   * @throws IllegalStateException if the informers do not sync in time
   */
  void start(Duration syncTimeout) {
    ClusterEventHandler handler = scheduler.eventHandler();
    WatchedInformer<Node> nodeInformer =
        watched(
            "nodes",
            () -> client.nodes().runnableInformer(0),
            client.nodes(),
            Informers.onChange(
                n -> {
                  handler.onNodeAdd(n);
                  nodeAdds.incrementAndGet();
                },
                handler::onNodeUpdate,
                handler::onNodeDelete));
    WatchedInformer<Pod> podInformer =
        watched(
            "pods",
            () -> client.pods().inAnyNamespace().runnableInformer(0),
            client.pods().inAnyNamespace(),
            Informers.onChange(
                p -> {
                  handler.onPodAdd(p);
                  podAdds.incrementAndGet();
                },
                handler::onPodUpdate,
                handler::onPodDelete));
    List<CompletableFuture<?>> started = new ArrayList<>();
    for (ObjectKind<?> kind : scheduler.objects().requestedKinds()) {
      if (kind.mayBeUnserved() && !client.supports(kind.type())) {
        log.info("the cluster does not serve {}; plugins see none", kind);
        continue;
      }
      started.add(startObjectInformer(kind, handler));
    }
    started.add(nodeInformer.start());
    started.add(podInformer.start());
    try {
      CompletableFuture.allOf(started.toArray(CompletableFuture[]::new))
          .get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("informers did not sync within " + syncTimeout, e);
    }
    // The stores are synced; wait until the handlers have also seen the initial listing, so
    // the first cycle does not run against a half-filled cache.
    awaitHandlers(
        nodeInformer.store().list().size(), podInformer.store().list().size(), syncTimeout);
    watchdog.start(CHECK);
  }

  /**
   * Starts an informer on {@code kind}, feeding {@code handler}. Its handler adds to the store
   * synchronously, so the listing is visible to plugins once the returned future completes.
   */
  private <T extends HasMetadata> CompletableFuture<?> startObjectInformer(
      ObjectKind<T> kind, ClusterEventHandler handler) {
    // A kind the client has no model of (an alpha API's) would otherwise arrive as a
    // GenericKubernetesResource.
    KubernetesSerialization serialization = client.getKubernetesSerialization();
    if (serialization.getRegisteredKubernetesResource(
            HasMetadata.getApiVersion(kind.type()), HasMetadata.getKind(kind.type()))
        == null) {
      serialization.registerKubernetesResource(kind.type());
    }
    Listable<? extends KubernetesResourceList<?>> lister =
        kind.namespaced()
            ? client.resources(kind.type()).inAnyNamespace()
            : client.resources(kind.type());
    WatchedInformer<T> informer =
        watched(
            kind.toString(),
            () ->
                kind.namespaced()
                    ? client.resources(kind.type()).inAnyNamespace().runnableInformer(0)
                    : client.resources(kind.type()).runnableInformer(0),
            lister,
            Informers.onChange(
                handler::onObjectAdd, handler::onObjectUpdate, handler::onObjectDelete));
    log.info("watching {} for plugins", kind);
    return informer.start();
  }

  private void awaitHandlers(int nodes, int pods, Duration syncTimeout) {
    long deadline = System.nanoTime() + syncTimeout.toNanos();
    while (nodeAdds.get() < nodes || podAdds.get() < pods) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("informer handlers did not catch up within " + syncTimeout);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for informers", e);
      }
    }
  }

  @Override
  public void close() {
    watchdog.close();
  }
}
