package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Resources;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The runtime's {@link FrameworkHandle}, one per profile, backed by its {@link Scheduler}. */
public final class DefaultFrameworkHandle implements FrameworkHandle {
  private static final Logger log = LoggerFactory.getLogger(DefaultFrameworkHandle.class);
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
  public Status bind(Pod pod, String nodeName, BindingMetadata metadata) {
    return scheduler.binder().bind(pod, nodeName, metadata);
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

  private FrameworkRuntime profile() {
    FrameworkRuntime f = scheduler.profile(schedulerName);
    if (f == null) {
      throw new IllegalStateException("profile " + schedulerName + " is not built yet");
    }
    return f;
  }

  @Override
  public Status runFilterWithNominatedPods(CycleState state, Pod pod, NodeInfo node) {
    return profile().runFilterWithNominatedPods(state, pod, node, scheduler.nominator());
  }

  @Override
  public Status runPreFilterAddPod(
      CycleState state, Pod podToSchedule, PodInfo toAdd, NodeInfo node) {
    return profile().runPreFilterAddPod(state, podToSchedule, toAdd, node);
  }

  @Override
  public Status runPreFilterRemovePod(
      CycleState state, Pod podToSchedule, PodInfo toRemove, NodeInfo node) {
    return profile().runPreFilterRemovePod(state, podToSchedule, toRemove, node);
  }

  @Override
  public List<PodInfo> nominatedPods(String nodeName) {
    return scheduler.nominator().nominatedPods(nodeName);
  }

  @Override
  public Status preempt(Pod victim, Pod preemptor, String nodeName) {
    String note = "Preempted by pod " + preemptor.getMetadata().getUid() + " on node " + nodeName;
    WaitingPodImpl waiting = scheduler.waitingPod(victim.getMetadata().getUid());
    if (waiting != null) {
      // Not bound yet: rejecting it at Permit frees the room without an API call.
      waiting.reject(preemptorPlugin(), "preempted");
      note += " (in kube-scheduler memory).";
    } else {
      Status s =
          scheduler
              .evictor()
              .evict(victim, schedulerName + ": preempting to accommodate a higher priority pod");
      if (!s.isSuccess()) {
        return s;
      }
    }
    log.info(
        "preempted pod={}/{} preemptor={}/{} node={}",
        victim.getMetadata().getNamespace(),
        victim.getMetadata().getName(),
        preemptor.getMetadata().getNamespace(),
        preemptor.getMetadata().getName(),
        nodeName);
    scheduler
        .eventRecorder()
        .record(victim, EventRecorder.Type.NORMAL, "Preempted", "Preempting", note);
    return Status.success();
  }

  private static String preemptorPlugin() {
    return "DefaultPreemption";
  }

  @Override
  public Status clearNomination(Pod pod) {
    String uid = pod.getMetadata().getUid();
    boolean held = scheduler.nominator().nominatedNode(uid) != null;
    scheduler.nominator().remove(uid);
    String nnn = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (held || (nnn != null && !nnn.isEmpty())) {
      scheduler.statusWriter().nominatedNodeName(pod, "");
    }
    return Status.success();
  }
}
