package io.hami.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.dsl.Listable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Store;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer that is replaced by a fresh one when its watch is lost for good.
 *
 * <p>An informer reconnects by itself after an API server restart, but not always: it can stop
 * after an error it chose not to retry, stay not watching after a failed reconnect, or keep a watch
 * that delivers nothing, each without a word, leaving its handlers blind for as long as the process
 * runs. {@link #check} finds these three cases and replaces the informer (a stopped one cannot be
 * restarted). The fresh informer starts from the old one's objects, so its listing reaches the
 * handlers as updates of the objects they know, additions of the new ones and deletions (final
 * state unknown) of those gone meanwhile, as a relist would.
 *
 * <p>A watch that delivers nothing is told apart from a quiet one by a count probe: the number of
 * objects the API server holds differs from the informer's store, and still differs a grace period
 * later with no event received in between.
 */
public final class WatchedInformer<T extends HasMetadata> {
  private static final Logger log = LoggerFactory.getLogger(WatchedInformer.class);

  /** Why an informer was replaced. */
  public enum Cause {
    /** It stopped by itself. */
    STOPPED,
    /** It did not watch for longer than the grace period. */
    NOT_WATCHING,
    /** Its store missed changes and it received nothing for longer than the grace period. */
    SILENT;

    /** The label value for metrics. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** Told of each replacement. */
  @FunctionalInterface
  public interface Listener {
    void replaced(String name, Cause cause, String detail);
  }

  private final String name;
  private final Supplier<SharedIndexInformer<T>> factory;
  private final List<ResourceEventHandler<? super T>> handlers;
  private final Supplier<OptionalLong> apiCount;
  private final long graceNanos;
  private final Listener listener;
  private volatile SharedIndexInformer<T> current;
  private volatile boolean closed;
  // Guarded by this.
  private long notWatchingSince;
  private boolean notWatching;
  private @Nullable Mismatch mismatch;
  private int replacements;

  private record Mismatch(@Nullable String resourceVersion, long since) {}

  /**
   * @param name what the informer watches, for logs and metrics
   * @param factory makes a new, unstarted informer on the same objects
   * @param handlers receive every event of the informer and of its replacements
   * @param apiCount the number of objects the API server holds now, empty when unknown; may throw
   * @param grace how long an informer may stay not watching, or silent, before it is replaced
   */
  public WatchedInformer(
      String name,
      Supplier<SharedIndexInformer<T>> factory,
      List<ResourceEventHandler<? super T>> handlers,
      Supplier<OptionalLong> apiCount,
      Duration grace,
      Listener listener) {
    if (grace.isNegative() || grace.isZero()) {
      throw new IllegalArgumentException("grace must be positive, was " + grace);
    }
    this.name = Objects.requireNonNull(name, "name");
    this.factory = Objects.requireNonNull(factory, "factory");
    this.handlers = List.copyOf(handlers);
    this.apiCount = Objects.requireNonNull(apiCount, "apiCount");
    this.graceNanos = grace.toNanos();
    this.listener = Objects.requireNonNull(listener, "listener");
    this.current = create(null);
  }

  /**
   * A probe of how many objects {@code op} lists, read from a one-item page: the page's item plus
   * the count the server says remains. Empty when the server does not say.
   */
  public static Supplier<OptionalLong> countOf(Listable<? extends KubernetesResourceList<?>> op) {
    return () -> {
      KubernetesResourceList<?> page = op.list(new ListOptionsBuilder().withLimit(1L).build());
      int items = page.getItems().size();
      Long remaining =
          page.getMetadata() == null ? null : page.getMetadata().getRemainingItemCount();
      if (remaining != null) {
        return OptionalLong.of(items + remaining);
      }
      String more = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      return more == null || more.isEmpty() ? OptionalLong.of(items) : OptionalLong.empty();
    };
  }

  private SharedIndexInformer<T> create(@Nullable List<T> known) {
    SharedIndexInformer<T> informer = factory.get();
    if (known != null) {
      informer.initialState(known.stream());
      // A replacement made while the API server is away must keep trying, not stop on its
      // first failed listing.
      informer.exceptionHandler((started, e) -> true);
    }
    handlers.forEach(informer::addEventHandler);
    return informer;
  }

  /** Starts the informer; the future completes once its first listing is in the store. */
  public CompletableFuture<Void> start() {
    return current.start().toCompletableFuture();
  }

  /** The current informer's store. */
  public Store<T> store() {
    return current.getStore();
  }

  public String name() {
    return name;
  }

  public boolean isRunning() {
    return current.isRunning();
  }

  /** How many times the informer was replaced. */
  public synchronized int replacements() {
    return replacements;
  }

  /**
   * Replaces the informer when it stopped, has not watched for the grace period, or missed changes
   * and received nothing for the grace period. Call it periodically, well within the grace period;
   * it may block on the count probe.
   *
   * @param nowNanos the current time, from a monotonic clock
   * @return why the informer was replaced, or null when it was not
   */
  public synchronized @Nullable Cause check(long nowNanos) {
    if (closed) {
      return null;
    }
    SharedIndexInformer<T> informer = current;
    if (!informer.isRunning()) {
      return replace(Cause.STOPPED, "the informer stopped");
    }
    if (!informer.isWatching()) {
      mismatch = null;
      if (!notWatching) {
        notWatching = true;
        notWatchingSince = nowNanos;
      } else if (nowNanos - notWatchingSince >= graceNanos) {
        return replace(
            Cause.NOT_WATCHING,
            "not watching for " + Duration.ofNanos(nowNanos - notWatchingSince));
      }
      return null;
    }
    notWatching = false;
    String version = informer.lastSyncResourceVersion();
    OptionalLong api;
    try {
      api = apiCount.get();
    } catch (RuntimeException e) {
      log.debug("count probe failed informer={}", name, e);
      return null;
    }
    // The store is counted only when the probe answered: its keys are copied.
    int held = api.isEmpty() ? -1 : informer.getStore().listKeys().size();
    if (api.isEmpty() || api.getAsLong() == held) {
      mismatch = null;
      return null;
    }
    Mismatch m = mismatch;
    if (m == null || !Objects.equals(m.resourceVersion(), version)) {
      mismatch = new Mismatch(version, nowNanos);
      return null;
    }
    if (nowNanos - m.since() < graceNanos) {
      return null;
    }
    return replace(
        Cause.SILENT,
        "the API server holds "
            + api.getAsLong()
            + " objects, the informer "
            + held
            + ", and it received nothing for "
            + Duration.ofNanos(nowNanos - m.since())
            + " (resource version "
            + version
            + ")");
  }

  private Cause replace(Cause cause, String detail) {
    SharedIndexInformer<T> old = current;
    List<T> known = old.getStore().list();
    old.stop();
    SharedIndexInformer<T> fresh = create(known);
    current = fresh;
    notWatching = false;
    mismatch = null;
    replacements++;
    log.warn(
        "informer replaced informer={} cause={} detail={} objects={}",
        name,
        cause.label(),
        detail,
        known.size());
    fresh.start();
    listener.replaced(name, cause, detail);
    return cause;
  }

  /** Stops the informer; it is not replaced after this. */
  public synchronized void stop() {
    closed = true;
    current.stop();
  }
}
