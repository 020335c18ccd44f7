package io.hami.framework.runtime;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.Status;
import io.hami.framework.bind.Binder;
import io.hami.framework.bind.ObjectWriter;
import io.hami.framework.bind.PodEvictor;
import io.hami.framework.config.ConfigException;
import io.hami.framework.config.SchedulerConfiguration;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Wires a {@link Scheduler}; production and in-memory drivers differ only in what they pass here.
 * Made by {@link Scheduler#builder}.
 */
public final class SchedulerBuilder {
  final SchedulerConfiguration config;
  final Registry plugins;
  InstantSource clock = InstantSource.system();
  PrometheusRegistry metricsRegistry = new PrometheusRegistry();
  Parallelizer parallelizer = Parallelizer.sequential();
  @Nullable KubernetesClient client;
  Binder binder = (pod, node, metadata) -> Status.error("no binder configured");
  @Nullable ObjectWriter objectWriter;
  @Nullable PodEvictor evictor;
  StatusWriter statusWriter = (pod, reason, message) -> {};
  EventRecorder eventRecorder = EventRecorder.discarding();
  Executor bindingExecutor = Runnable::run;
  int maxBindingsInFlight;
  @Nullable Long seed;
  SchedulingObserver observer = SchedulingObserver.none();
  long podInfoCacheSize = 200_000;

  SchedulerBuilder(SchedulerConfiguration config, Registry plugins) {
    this.config = requireNonNull(config);
    this.plugins = requireNonNull(plugins);
  }

  public SchedulerBuilder clock(InstantSource c) {
    this.clock = c;
    return this;
  }

  public SchedulerBuilder metricsRegistry(PrometheusRegistry r) {
    this.metricsRegistry = r;
    return this;
  }

  public SchedulerBuilder parallelizer(Parallelizer p) {
    this.parallelizer = p;
    return this;
  }

  public SchedulerBuilder client(@Nullable KubernetesClient c) {
    this.client = c;
    return this;
  }

  public SchedulerBuilder binder(Binder b) {
    this.binder = b;
    return this;
  }

  /**
   * How plugins' object writes ({@code FrameworkHandle.updateObject}) reach the cluster; by default
   * through the client when there is one.
   */
  public SchedulerBuilder objectWriter(ObjectWriter w) {
    this.objectWriter = w;
    return this;
  }

  /**
   * How preemption evicts its victims ({@code FrameworkHandle.preempt}); by default through the
   * client when there is one, else not at all.
   */
  public SchedulerBuilder evictor(PodEvictor e) {
    this.evictor = e;
    return this;
  }

  public SchedulerBuilder statusWriter(StatusWriter w) {
    this.statusWriter = w;
    return this;
  }

  public SchedulerBuilder eventRecorder(EventRecorder r) {
    this.eventRecorder = r;
    return this;
  }

  public SchedulerBuilder bindingExecutor(Executor e) {
    this.bindingExecutor = e;
    return this;
  }

  /**
   * At most this many bindings queued or running before the scheduling thread waits for one to
   * finish; 0 (the default) for no limit, as with a binding executor that runs in place.
   */
  public SchedulerBuilder maxBindingsInFlight(int n) {
    checkArgument(n >= 0, "maxBindingsInFlight %s must not be negative", n);
    this.maxBindingsInFlight = n;
    return this;
  }

  /**
   * Breaks score ties with a random generator seeded by {@code seed}, reproducibly; without a seed
   * ties go to the first node in snapshot order.
   */
  public SchedulerBuilder tieBreakSeed(@Nullable Long s) {
    this.seed = s;
    return this;
  }

  public SchedulerBuilder observer(SchedulingObserver o) {
    this.observer = o;
    return this;
  }

  public SchedulerBuilder podInfoCacheSize(long size) {
    this.podInfoCacheSize = size;
    return this;
  }

  /**
   * Builds the scheduler.
   *
   * @throws ConfigException when a profile cannot be built (every error listed)
   */
  public Scheduler build() {
    return new Scheduler(this);
  }
}
