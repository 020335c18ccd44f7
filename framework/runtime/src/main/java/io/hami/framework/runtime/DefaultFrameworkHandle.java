package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.Resources;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Optional;

/** The runtime's {@link FrameworkHandle}, one per profile, backed by its {@link Scheduler}. */
public final class DefaultFrameworkHandle implements FrameworkHandle {
  private final String schedulerName;
  private final Scheduler scheduler;

  DefaultFrameworkHandle(String schedulerName, Scheduler scheduler) {
    this.schedulerName = schedulerName;
    this.scheduler = scheduler;
  }

  @Override
  public String schedulerName() {
    return schedulerName;
  }

  @Override
  public Snapshot snapshot() {
    return scheduler.snapshot();
  }

  @Override
  public Optional<KubernetesClient> client() {
    return scheduler.client();
  }

  @Override
  public InstantSource clock() {
    return scheduler.clock();
  }

  @Override
  public EventRecorder eventRecorder() {
    return scheduler.eventRecorder();
  }

  @Override
  public Parallelizer parallelizer() {
    return scheduler.parallelizer();
  }

  @Override
  public Resources podRequests(Pod pod) {
    return scheduler.podInfos().get(pod).requests();
  }

  @Override
  public void addClusterStateListener(ClusterStateListener listener) {
    scheduler.addListener(listener);
  }

  @Override
  public void nodeStateChanged(String nodeName) {
    scheduler.cache().touchNode(nodeName);
  }

  @Override
  public void addAttemptObserver(AttemptObserver observer) {
    scheduler.addAttemptObserver(schedulerName, observer);
  }

  @Override
  public Status bind(Pod pod, String nodeName) {
    return scheduler.binder().bind(pod, nodeName);
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(ObjectKind<T> kind) {
    return scheduler.objects().lister(kind);
  }

  @Override
  public Status updateObject(HasMetadata obj) {
    return scheduler.objectWriter().update(obj);
  }

  @Override
  public Optional<WaitingPod> waitingPod(String uid) {
    return Optional.ofNullable(scheduler.waitingPod(uid));
  }

  @Override
  public void activate(Collection<Pod> pods) {
    scheduler.queue().activate(pods);
  }

  @Override
  public PrometheusRegistry metricsRegistry() {
    return scheduler.metrics().registry();
  }

  @Override
  public boolean leading() {
    return scheduler.running();
  }
}
