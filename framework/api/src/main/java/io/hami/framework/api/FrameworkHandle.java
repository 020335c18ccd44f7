package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What the runtime gives a plugin: handed to {@link PluginFactory#create} and valid for the
 * plugin's lifetime. All methods are thread-safe.
 */
public interface FrameworkHandle {

  /** The {@code schedulerName} of the profile the plugin belongs to. */
  String schedulerName();

  /**
   * The snapshot of the current scheduling cycle. Meaningful only on the scheduling thread during a
   * cycle; Filter and Score should use the NodeInfo they are passed.
   */
  Snapshot snapshot();

  /**
   * The Kubernetes client, absent when the framework runs against an in-memory cluster. Plugins
   * that write to the API (PreBind) must treat absence as "nothing to write".
   */
  Optional<KubernetesClient> client();

  /** The clock for every timestamp and timeout; tests advance a fake one. */
  InstantSource clock();

  /** Emits Kubernetes Events. */
  EventRecorder eventRecorder();

  /** The bounded parallelizer for fan-out work. */
  Parallelizer parallelizer();

  /**
   * Returns the pod's effective request ({@link Resources#forPod}), memoized by UID and
   * resourceVersion.
   *
   * @throws IllegalArgumentException if a quantity cannot be parsed
   */
  Resources podRequests(Pod pod);

  /**
   * Registers a listener for the informer events that feed the cache. Call it from the plugin's
   * factory, before the informers start, so that the initial listing is delivered too.
   */
  void addClusterStateListener(ClusterStateListener listener);

  /**
   * Tells the scheduler that state a plugin keeps for this node outside the {@link NodeInfo} (its
   * device usage, say) changed: the node's next NodeInfo is a new instance, so that Filter verdicts
   * ({@link FilterEquivalence}) and {@link NodeLocal} data kept on the old one are not used for it
   * again. Call it after the new state is visible to readers. A plugin whose Filter reads such
   * state must call it on every change.
   */
  void nodeStateChanged(String nodeName);

  /**
   * Registers an observer of this profile's failed attempts. Call it from the plugin's factory. The
   * default ignores it, for handles that write no pod status.
   */
  default void addAttemptObserver(AttemptObserver observer) {}

  /**
   * Binds {@code pod} to {@code nodeName} the way the scheduler was set up to: {@code pods/binding}
   * against a cluster, the store of an in-memory one, with {@code metadata} merged onto the pod in
   * the same write (as the API server does with a Binding's annotations and labels). Called on a
   * binding thread; may block. Returns success or an error status. The default binds nothing and
   * says so.
   */
  default Status bind(Pod pod, String nodeName, BindingMetadata metadata) {
    return Status.error("this handle has no binder");
  }

  /**
   * The cluster's objects of {@code kind} (PVCs, PVs, StorageClasses, CSINodes, CSIDrivers,
   * Namespaces, Services, ReplicaSets, StatefulSets, ReplicationControllers, PodGroups). Call it
   * from the plugin's factory: the scheduler lists and watches only the kinds some plugin asked
   * for, starts those informers with its own and waits for their first listing before the first
   * cycle. Their changes reach queueing hints as {@link ClusterEvent}s of {@link
   * ObjectKind#resource()}, with actions ADD, UPDATE_OTHER or DELETE.
   */
  <T extends HasMetadata> ObjectLister<T> lister(ObjectKind<T> kind);

  /**
   * Writes a new version of a cluster object of an {@link ObjectKind} (a PV's claimRef, a PVC's
   * annotations) the way the scheduler was set up to: an update through the API against a cluster
   * (the object's resourceVersion, when set, is the precondition), the store of an in-memory one,
   * which also plays the controllers that react to the write (the PV controller completing a volume
   * binding). Called on a binding thread (PreBind); may block. Returns success or an error status.
   * The default writes nothing and says so.
   */
  default Status updateObject(HasMetadata obj) {
    return Status.error("this handle cannot write " + obj.getKind() + " objects");
  }

  /** Returns the pod of {@code uid} if it is waiting at Permit. */
  Optional<WaitingPod> waitingPod(String uid);

  /**
   * Moves the given pending pods to the active queue now, skipping their backoff (for example when
   * a plugin learns that what blocked them is gone).
   */
  void activate(Collection<Pod> pods);

  /**
   * The registry the scheduler serves on {@code /metrics}. Plugins register their metrics here
   * (once per registry: every profile's handle returns the same one).
   */
  PrometheusRegistry metricsRegistry();

  // ---- preemption (PostFilter). Called on the scheduling thread; the defaults say "unsupported".

  /**
   * Runs every Filter plugin of the profile on {@code node} for {@code pod}, the way the scheduling
   * cycle does for a node with nominated pods: first with the nominated pods of priority at least
   * the pod's (other than the pod itself) added to a copy of the node and of {@code state}, then,
   * if that passed and any were added, without them. Plugins PreFilter skipped for the pod are
   * skipped; kept Filter verdicts ({@link FilterEquivalence}) are never used. Returns the first
   * non-success status.
   */
  default Status runFilterWithNominatedPods(CycleState state, Pod pod, NodeInfo node) {
    return Status.error("this handle cannot run Filter plugins");
  }

  /**
   * Tells every PreFilter plugin that implements {@link PreFilterExtensions} and did not skip
   * {@code podToSchedule} that {@code toAdd} was added to {@code node}; stops at the first that
   * does not succeed and returns its status. {@code state} is a copy the caller owns.
   */
  default Status runPreFilterAddPod(
      CycleState state, Pod podToSchedule, PodInfo toAdd, NodeInfo node) {
    return Status.error("this handle cannot run PreFilter extensions");
  }

  /** Like {@link #runPreFilterAddPod}, for {@code toRemove} taken off {@code node}. */
  default Status runPreFilterRemovePod(
      CycleState state, Pod podToSchedule, PodInfo toRemove, NodeInfo node) {
    return Status.error("this handle cannot run PreFilter extensions");
  }

  /**
   * The pods nominated to {@code nodeName} (by an earlier preemption, or as their {@code
   * status.nominatedNodeName} says), in nomination order; empty when none. Thread-safe.
   */
  default List<PodInfo> nominatedPods(String nodeName) {
    return List.of();
  }

  /**
   * Evicts {@code victim} from {@code nodeName} to make room for {@code preemptor}: a pod waiting
   * at Permit is rejected; any other is marked {@code DisruptionTarget=True} (reason {@code
   * PreemptionByScheduler}) and deleted gracefully, against a cluster, or removed from an in-memory
   * one; an Event {@code Preempted} is recorded on it. A victim already gone counts as evicted. May
   * block on the API. Returns success or an error status.
   */
  default Status preempt(Pod victim, Pod preemptor, String nodeName) {
    return Status.error("this handle cannot preempt pods");
  }

  /**
   * Drops {@code pod}'s nomination, in the scheduler and in its {@code status.nominatedNodeName}
   * (the write is asynchronous). Returns success or an error status.
   */
  default Status clearNomination(Pod pod) {
    return Status.error("this handle cannot clear nominations");
  }

  /**
   * Whether this scheduler runs the scheduling loop now; false on a standby replica that waits for
   * the leader lease. Plugins that write cluster state in the background write only while leading.
   */
  default boolean leading() {
    return true;
  }
}
