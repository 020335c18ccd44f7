package io.hami.framework.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.ClusterStateListener;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PreFilterExtensions;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.Resources;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.Status;
import io.hami.framework.api.WaitingPod;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FrameworkHandle} for plugin tests: a settable snapshot, a {@link FakeClock}, a
 * sequential parallelizer, recorded events and activations, and the registered cluster-state
 * listeners, which tests drive through {@code fire*}. No client unless one is given.
 *
 * <p>For PostFilter tests it runs the Filter and PreFilter plugins given to {@link
 * #withFilterPlugins} and {@link #withPreFilterPlugins} (every PreFilter extension runs; the handle
 * does not know which plugins skipped), holds nominations given to {@link #withNominatedPod}, and
 * records preemptions ({@link #preempted}) and cleared nominations instead of acting on a cluster.
 */
public final class FakeHandle implements FrameworkHandle {

  /** An Event captured by the handle's recorder. */
  public record RecordedEvent(
      HasMetadata regarding, EventRecorder.Type type, String reason, String action, String note) {}

  private final String schedulerName;
  private final FakeClock clock;
  private volatile Snapshot snapshot = Snapshot.of(List.of());
  private volatile @Nullable KubernetesClient client;
  private final List<RecordedEvent> events = new CopyOnWriteArrayList<>();
  private final List<ClusterStateListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Pod> activated = new CopyOnWriteArrayList<>();
  private final List<AttemptObserver> attemptObservers = new CopyOnWriteArrayList<>();
  private final List<String> changedNodes = new CopyOnWriteArrayList<>();
  private final Map<String, WaitingPod> waiting = new ConcurrentHashMap<>();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private volatile boolean leading = true;
  private volatile Parallelizer parallelizer = Parallelizer.sequential();
  private final Map<String, HasMetadata> objects = new ConcurrentHashMap<>();
  private final List<HasMetadata> updates = new CopyOnWriteArrayList<>();
  private volatile List<FilterPlugin> filterPlugins = List.of();
  private volatile List<PreFilterPlugin> preFilterPlugins = List.of();
  private final Map<String, List<PodInfo>> nominated = new ConcurrentHashMap<>();
  private final List<Preemption> preempted = new CopyOnWriteArrayList<>();
  private final List<Pod> clearedNominations = new CopyOnWriteArrayList<>();
  private volatile Status preemptStatus = Status.success();

  /** A victim evicted through {@link #preempt}. */
  public record Preemption(Pod victim, Pod preemptor, String nodeName) {}

  public FakeHandle(String schedulerName, FakeClock clock) {
    this.schedulerName = schedulerName;
    this.clock = clock;
  }

  public FakeHandle() {
    this("hami-scheduler", new FakeClock());
  }

  public FakeHandle withSnapshot(Snapshot s) {
    this.snapshot = s;
    return this;
  }

  public FakeHandle withNodes(NodeInfo... nodes) {
    return withSnapshot(Snapshot.of(List.of(nodes)));
  }

  /** Makes {@link #parallelizer()} return {@code p} instead of the sequential one. */
  public FakeHandle withParallelizer(Parallelizer p) {
    this.parallelizer = p;
    return this;
  }

  public FakeHandle withClient(KubernetesClient c) {
    this.client = c;
    return this;
  }

  /** Makes {@link #leading()} answer {@code v} (a standby replica answers false). */
  public FakeHandle withLeading(boolean v) {
    this.leading = v;
    return this;
  }

  /** Adds or replaces cluster objects (PVCs, PVs, StorageClasses...) that listers return. */
  public FakeHandle withObjects(HasMetadata... objs) {
    for (HasMetadata o : objs) {
      ObjectKind<?> kind = ObjectKind.of(o);
      objects.put(kind + ":" + kind.key(o), o);
    }
    return this;
  }

  /**
   * Records the object in {@link #updates()}, then updates it through the client given to {@link
   * #withClient} and stores the result, or else stores it as {@link #withObjects} does; emulates no
   * controller.
   */
  @Override
  public Status updateObject(HasMetadata obj) {
    updates.add(obj);
    KubernetesClient c = client;
    if (c != null) {
      // The listers see what the server stored, as an informer would deliver it.
      withObjects(c.resource(obj).update());
    } else {
      withObjects(obj);
    }
    return Status.success();
  }

  /** The objects given to {@link #updateObject}, in order. */
  public List<HasMetadata> updates() {
    return List.copyOf(updates);
  }

  /** Removes a cluster object given to {@link #withObjects}. */
  public FakeHandle withoutObject(HasMetadata o) {
    ObjectKind<?> kind = ObjectKind.of(o);
    objects.remove(kind + ":" + kind.key(o));
    return this;
  }

  @Override
  public <T extends HasMetadata> ObjectLister<T> lister(ObjectKind<T> kind) {
    return new ObjectLister<>() {
      @Override
      public List<T> list() {
        List<T> out = new ArrayList<>();
        for (HasMetadata o : objects.values()) {
          if (kind.type().isInstance(o)) {
            out.add(kind.type().cast(o));
          }
        }
        return out;
      }

      @Override
      public @Nullable T get(@Nullable String namespace, String name) {
        HasMetadata o = objects.get(kind + ":" + kind.key(namespace, name));
        return o == null ? null : kind.type().cast(o);
      }
    };
  }

  /** The Filter plugins {@link #runFilterWithNominatedPods} runs, in order. */
  public FakeHandle withFilterPlugins(FilterPlugin... plugins) {
    this.filterPlugins = List.of(plugins);
    return this;
  }

  /** The PreFilter plugins whose extensions {@link #runPreFilterAddPod} and the like run. */
  public FakeHandle withPreFilterPlugins(PreFilterPlugin... plugins) {
    this.preFilterPlugins = List.of(plugins);
    return this;
  }

  /** Nominates {@code pod} to {@code nodeName}, as a preemption or its status would. */
  public FakeHandle withNominatedPod(String nodeName, Pod pod) {
    nominated.computeIfAbsent(nodeName, n -> new CopyOnWriteArrayList<>()).add(PodInfo.of(pod));
    return this;
  }

  /** Makes {@link #preempt} answer {@code s} (and record nothing) unless it is success. */
  public FakeHandle withPreemptStatus(Status s) {
    this.preemptStatus = s;
    return this;
  }

  @Override
  public Status runFilterWithNominatedPods(CycleState state, Pod pod, NodeInfo node) {
    int priority = PodInfo.priorityOf(pod);
    CycleState withState = null;
    NodeInfo withNode = node;
    for (PodInfo p : nominatedPods(node.name())) {
      if (p.priority() < priority || p.uid().equals(pod.getMetadata().getUid())) {
        continue;
      }
      if (withState == null) {
        withState = state.copy();
      }
      withNode = withNode.withPod(p);
      Status s = runPreFilterAddPod(withState, pod, p, withNode);
      if (!s.isSuccess()) {
        return s;
      }
    }
    if (withState != null) {
      Status first = runFilters(withState, pod, withNode);
      if (!first.isSuccess()) {
        return first;
      }
    }
    return runFilters(state, pod, node);
  }

  private Status runFilters(CycleState state, Pod pod, NodeInfo node) {
    for (FilterPlugin f : filterPlugins) {
      Status s = f.filter(state, pod, node);
      if (!s.isSuccess()) {
        return s.withPlugin(f.name());
      }
    }
    return Status.success();
  }

  @Override
  public Status runPreFilterAddPod(
      CycleState state, Pod podToSchedule, PodInfo toAdd, NodeInfo node) {
    for (PreFilterPlugin p : preFilterPlugins) {
      if (p instanceof PreFilterExtensions x) {
        Status s = x.addPod(state, podToSchedule, toAdd, node);
        if (!s.isSuccess()) {
          return s.withPlugin(p.name());
        }
      }
    }
    return Status.success();
  }

  @Override
  public Status runPreFilterRemovePod(
      CycleState state, Pod podToSchedule, PodInfo toRemove, NodeInfo node) {
    for (PreFilterPlugin p : preFilterPlugins) {
      if (p instanceof PreFilterExtensions x) {
        Status s = x.removePod(state, podToSchedule, toRemove, node);
        if (!s.isSuccess()) {
          return s.withPlugin(p.name());
        }
      }
    }
    return Status.success();
  }

  @Override
  public List<PodInfo> nominatedPods(String nodeName) {
    List<PodInfo> l = nominated.get(nodeName);
    return l == null ? List.of() : List.copyOf(l);
  }

  /** Records the eviction and a {@code Preempted} Event, as the scheduler's handle does. */
  @Override
  public Status preempt(Pod victim, Pod preemptor, String nodeName) {
    if (!preemptStatus.isSuccess()) {
      return preemptStatus;
    }
    preempted.add(new Preemption(victim, preemptor, nodeName));
    eventRecorder()
        .record(
            victim,
            EventRecorder.Type.NORMAL,
            "Preempted",
            "Preempting",
            "Preempted by pod " + preemptor.getMetadata().getUid() + " on node " + nodeName);
    return Status.success();
  }

  /** The victims given to {@link #preempt}, in order. */
  public List<Preemption> preempted() {
    return List.copyOf(preempted);
  }

  @Override
  public Status clearNomination(Pod pod) {
    String uid = pod.getMetadata().getUid();
    for (List<PodInfo> l : nominated.values()) {
      l.removeIf(p -> p.uid().equals(uid));
    }
    clearedNominations.add(pod);
    return Status.success();
  }

  /** The pods given to {@link #clearNomination}, in order. */
  public List<Pod> clearedNominations() {
    return List.copyOf(clearedNominations);
  }

  public FakeClock fakeClock() {
    return clock;
  }

  public List<RecordedEvent> events() {
    return List.copyOf(events);
  }

  /** The attempt observers plugins registered. */
  public List<AttemptObserver> attemptObservers() {
    return List.copyOf(attemptObservers);
  }

  public List<Pod> activated() {
    return List.copyOf(activated);
  }

  public List<ClusterStateListener> listeners() {
    return List.copyOf(listeners);
  }

  public void putWaitingPod(String uid, WaitingPod pod) {
    waiting.put(uid, pod);
  }

  public void fireNodeAdd(Node node) {
    listeners.forEach(l -> l.onNodeAdd(node));
  }

  public void fireNodeUpdate(Node oldNode, Node newNode) {
    listeners.forEach(l -> l.onNodeUpdate(oldNode, newNode));
  }

  public void fireNodeDelete(Node node) {
    listeners.forEach(l -> l.onNodeDelete(node));
  }

  public void firePodAdd(Pod pod) {
    listeners.forEach(l -> l.onPodAdd(pod));
  }

  public void firePodUpdate(Pod oldPod, Pod newPod) {
    listeners.forEach(l -> l.onPodUpdate(oldPod, newPod));
  }

  public void firePodDelete(Pod pod) {
    listeners.forEach(l -> l.onPodDelete(pod));
  }

  @Override
  public String schedulerName() {
    return schedulerName;
  }

  @Override
  public Snapshot snapshot() {
    return snapshot;
  }

  @Override
  public Optional<KubernetesClient> client() {
    return Optional.ofNullable(client);
  }

  @Override
  public InstantSource clock() {
    return clock;
  }

  @Override
  public EventRecorder eventRecorder() {
    return (regarding, type, reason, action, note) ->
        events.add(new RecordedEvent(regarding, type, reason, action, note));
  }

  @Override
  public Parallelizer parallelizer() {
    return parallelizer;
  }

  @Override
  public Resources podRequests(Pod pod) {
    return Resources.forPod(pod);
  }

  @Override
  public void addClusterStateListener(ClusterStateListener listener) {
    listeners.add(listener);
  }

  @Override
  public void nodeStateChanged(String nodeName) {
    changedNodes.add(nodeName);
  }

  /** The nodes plugins reported through {@link #nodeStateChanged}, in order. */
  public List<String> changedNodes() {
    return List.copyOf(changedNodes);
  }

  @Override
  public Optional<WaitingPod> waitingPod(String uid) {
    return Optional.ofNullable(waiting.get(uid));
  }

  @Override
  public void addAttemptObserver(AttemptObserver observer) {
    attemptObservers.add(observer);
  }

  @Override
  public void activate(Collection<Pod> pods) {
    activated.addAll(new ArrayList<>(pods));
  }

  @Override
  public PrometheusRegistry metricsRegistry() {
    return registry;
  }

  @Override
  public boolean leading() {
    return leading;
  }
}
