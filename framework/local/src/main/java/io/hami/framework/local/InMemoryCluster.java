package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.hami.framework.api.BindingMetadata;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.Parallelizer;
import io.hami.framework.api.Status;
import io.hami.framework.bind.PodEvictor;
import io.hami.framework.config.SchedulerConfiguration;
import io.hami.framework.runtime.DefaultParallelizer;
import io.hami.framework.runtime.Registry;
import io.hami.framework.runtime.Scheduler;
import io.hami.framework.runtime.SchedulingObserver;
import io.hami.framework.runtime.StatusWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A cluster held in memory and scheduled by the production code path: nodes and pods go through the
 * same event handler, cache, queue and scheduling cycle as informer events do, and the default
 * binder writes into this cluster's store, which reports the bound pod back as an update (as the
 * API server's watch would).
 *
 * <p>Determinism: with the default parallelism of 1 the scheduling cycle is sequential, binding
 * runs inline, UIDs and resourceVersions are derived from names and counters, and time is a {@link
 * ManualClock}; score ties go to the first node in insertion order unless a seed is set, in which
 * case they are broken by a generator seeded with it. Two runs with the same inputs give the same
 * placements.
 *
 * <p>Not thread-safe: drive it from one thread.
 */
public final class InMemoryCluster implements AutoCloseable {

  /** An Event recorded by the in-memory recorder. */
  public record RecordedEvent(String object, String type, String reason, String note) {}

  /** The PodScheduled message the API server gives a pod created with scheduling gates. */
  public static final String SCHEDULING_GATED_MESSAGE =
      "Scheduling is blocked due to non-empty scheduling gates";

  private final ManualClock clock;
  private final Scheduler scheduler;
  private final @Nullable DefaultParallelizer ownedParallelizer;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final ObjectStore objects = new ObjectStore();
  private final PodStore pods = new PodStore();
  private final PodOutcomes outcomes;
  private final ObjectStamps stamps;
  private final RecordedEvents events = new RecordedEvents();
  private final Duration terminationDelay;
  private final Terminations terminating = new Terminations();

  private InMemoryCluster(Builder b) {
    this.clock = new ManualClock(b.start);
    this.stamps = new ObjectStamps(clock);
    this.outcomes = new PodOutcomes(b.observer);
    this.terminationDelay = b.terminationDelay;
    Parallelizer parallelizer;
    if (b.parallelism > 1) {
      ownedParallelizer = new DefaultParallelizer(b.parallelism);
      parallelizer = ownedParallelizer;
    } else {
      ownedParallelizer = null;
      parallelizer = Parallelizer.sequential();
    }
    this.scheduler =
        Scheduler.builder(b.config.withParallelism(Math.max(1, b.parallelism)), b.registry)
            .clock(clock)
            .parallelizer(parallelizer)
            .binder(this::bind)
            .objectWriter(this::updateObject)
            .statusWriter(new Writer())
            .evictor(this::evict)
            .eventRecorder(b.recordEvents ? events : EventRecorder.discarding())
            .bindingExecutor(Runnable::run)
            .tieBreakSeed(b.seed)
            .observer(outcomes)
            .build();
  }

  public static Builder builder(Registry registry) {
    return new Builder(registry);
  }

  // ---- cluster changes

  /** Adds a node (a copy is stored, with a fresh resourceVersion). */
  public void addNode(Node node) {
    Node n =
        new NodeBuilder(node)
            .editMetadata()
            .withResourceVersion(stamps.nextVersion())
            .endMetadata()
            .build();
    String name = n.getMetadata().getName();
    if (nodes.containsKey(name)) {
      throw new IllegalArgumentException("node " + name + " already exists");
    }
    nodes.put(name, n);
    scheduler.eventHandler().onNodeAdd(n);
  }

  /** Replaces a node; its name must exist. */
  public void updateNode(Node node) {
    String name = node.getMetadata().getName();
    Node old = nodes.get(name);
    if (old == null) {
      throw new IllegalArgumentException("node " + name + " does not exist");
    }
    Node n =
        new NodeBuilder(node)
            .editMetadata()
            .withResourceVersion(stamps.nextVersion())
            .endMetadata()
            .build();
    nodes.put(name, n);
    scheduler.eventHandler().onNodeUpdate(old, n);
  }

  public void deleteNode(String name) {
    Node old = nodes.remove(name);
    if (old != null) {
      scheduler.eventHandler().onNodeDelete(old);
    }
  }

  /**
   * Adds or replaces a cluster object that plugins read through listers (a PVC, PV, StorageClass,
   * CSINode, CSIDriver, Namespace, Service, workload or {@link io.hami.framework.api.PodGroup}); a
   * copy is stored, with a fresh resourceVersion and, when it has none, the cluster clock's time as
   * its creation time.
   *
   * @throws IllegalArgumentException if the object is of another kind or has no name
   */
  public void putObject(HasMetadata obj) {
    ObjectKind<?> kind = ObjectKind.of(obj);
    if (obj.getMetadata() == null || obj.getMetadata().getName() == null) {
      throw new IllegalArgumentException(kind + " has no metadata.name");
    }
    HasMetadata copy = ShallowCopy.of(obj);
    copy.setMetadata(ShallowCopy.of(obj.getMetadata()));
    if (kind.namespaced() && copy.getMetadata().getNamespace() == null) {
      copy.getMetadata().setNamespace("default");
    }
    copy.getMetadata().setResourceVersion(stamps.nextVersion());
    if (copy.getMetadata().getCreationTimestamp() == null) {
      copy.getMetadata().setCreationTimestamp(stamps.now());
    }
    HasMetadata old = objects.put(kind, copy);
    if (old == null) {
      scheduler.eventHandler().onObjectAdd(copy);
    } else {
      scheduler.eventHandler().onObjectUpdate(old, copy);
    }
  }

  /** Returns the stored object of {@code kind} called {@code name}, if any. */
  public <T extends HasMetadata> Optional<T> object(
      ObjectKind<T> kind, @Nullable String namespace, String name) {
    HasMetadata o = objects.get(kind, namespace, name);
    return o == null ? Optional.empty() : Optional.of(kind.type().cast(o));
  }

  /** Deletes a cluster object given to {@link #putObject}; nothing if there is none. */
  public void deleteObject(HasMetadata obj) {
    HasMetadata old = objects.remove(obj);
    if (old != null) {
      scheduler.eventHandler().onObjectDelete(old);
    }
  }

  /**
   * Adds a pod. A missing namespace becomes {@code default}, a missing UID is derived from the
   * name, and the creation time is the cluster's clock.
   */
  public void addPod(Pod pod) {
    String ns =
        pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      uid = UUID.nameUUIDFromBytes((ns + "/" + name).getBytes(StandardCharsets.UTF_8)).toString();
    }
    // The stored pod has metadata of its own; spec and status are the caller's, as an API server
    // keeps what it was sent (the caller must not change them afterwards).
    Pod p = ShallowCopy.of(pod);
    p.setMetadata(ShallowCopy.of(pod.getMetadata()));
    p.getMetadata().setNamespace(ns);
    p.getMetadata().setUid(uid);
    p.getMetadata().setResourceVersion(stamps.nextVersion());
    if (p.getMetadata().getCreationTimestamp() == null) {
      p.getMetadata().setCreationTimestamp(stamps.now());
    }
    if (p.getSpec() != null
        && p.getSpec().getSchedulingGates() != null
        && !p.getSpec().getSchedulingGates().isEmpty()) {
      // As the API server does on create: a gated pod reports why it is not being scheduled.
      p.setStatus(p.getStatus() == null ? new PodStatus() : ShallowCopy.of(p.getStatus()));
      stamps.setCondition(p, "PodScheduled", "False", "SchedulingGated", SCHEDULING_GATED_MESSAGE);
    }
    String key = ns + "/" + name;
    if (pods.contains(key)) {
      throw new IllegalArgumentException("pod " + key + " already exists");
    }
    pods.put(key, p);
    scheduler.eventHandler().onPodAdd(p);
  }

  /** Replaces a pod (same namespace and name). */
  public void updatePod(Pod pod) {
    String key = PodStore.key(pod);
    Pod old = pods.get(key);
    if (old == null) {
      throw new IllegalArgumentException("pod " + key + " does not exist");
    }
    Pod p =
        new PodBuilder(pod)
            .editMetadata()
            .withUid(old.getMetadata().getUid())
            .withResourceVersion(stamps.nextVersion())
            .endMetadata()
            .build();
    pods.put(key, p);
    scheduler.eventHandler().onPodUpdate(old, p);
  }

  public void deletePod(String namespace, String name) {
    terminating.remove(namespace + "/" + name);
    Pod old = pods.remove(namespace + "/" + name);
    if (old != null) {
      outcomes.remove(namespace + "/" + name);
      scheduler.eventHandler().onPodDelete(old);
    }
  }

  // ---- running

  /** The result of {@link #drain}. */
  public record DrainResult(int attempts, int bound, int pending, Duration simulatedTime) {}

  /**
   * Schedules until no pod can make progress: pops and schedules every active pod, and while pods
   * are backing off moves the clock to the next backoff expiry. Pods waiting for a cluster event
   * stay pending. A pod that keeps failing with errors is retried at most {@code maxRetries} times
   * in one call.
   */
  public DrainResult drain(int maxRetries) {
    Instant start = clock.instant();
    int attempts = 0;
    int boundBefore = boundCount();
    int rounds = 0;
    while (true) {
      while (scheduler.scheduleNext()) {
        attempts++;
      }
      Optional<Instant> next = scheduler.queue().nextBackoffExpiry();
      if (next.isEmpty() || rounds++ >= maxRetries) {
        break;
      }
      clock.advanceTo(next.get());
      scheduler.tick();
    }
    return new DrainResult(
        attempts,
        boundCount() - boundBefore,
        pendingCount(),
        Duration.between(start, clock.instant()));
  }

  /** {@link #drain(int)} with up to 10 backoff rounds. */
  public DrainResult drain() {
    return drain(10);
  }

  /**
   * Moves the clock forward by {@code d} in one-second steps, running the periodic work (backoff
   * flush, the unschedulable flush every 30 s) and scheduling what becomes active.
   */
  public void advance(Duration d) {
    Instant end = clock.instant().plus(d);
    while (clock.instant().isBefore(end)) {
      Instant step = clock.instant().plusSeconds(1);
      clock.advanceTo(step.isAfter(end) ? end : step);
      finishTerminations();
      scheduler.tick();
      while (scheduler.scheduleNext()) {
        // keep going
      }
    }
  }

  // ---- results

  public Optional<PodOutcome> outcome(String namespace, String name) {
    return Optional.ofNullable(outcomes.get(namespace + "/" + name));
  }

  /** Every pod's outcome, in the order pods were first attempted. */
  public Map<String, PodOutcome> outcomes() {
    return outcomes.all();
  }

  public Optional<Pod> pod(String namespace, String name) {
    return Optional.ofNullable(pods.get(namespace + "/" + name));
  }

  public Collection<Pod> pods() {
    return pods.values();
  }

  public Collection<Node> nodes() {
    return Collections.unmodifiableCollection(nodes.values());
  }

  public List<RecordedEvent> events() {
    return events.list();
  }

  public int boundCount() {
    return pods.boundCount();
  }

  public int pendingCount() {
    return pods.size() - boundCount();
  }

  public ManualClock clock() {
    return clock;
  }

  /** The scheduler behind this cluster (metrics, queue and cache for inspection). */
  public Scheduler scheduler() {
    return scheduler;
  }

  /** Closes the scheduler's plugins, then the parallelizer this cluster made. */
  @Override
  public void close() {
    scheduler.close();
    if (ownedParallelizer != null) {
      ownedParallelizer.close();
    }
  }

  // ---- the in-memory API server

  private Status bind(Pod pod, String nodeName, BindingMetadata metadata) {
    String key = PodStore.key(pod);
    Pod current = pods.get(key);
    if (current == null || !current.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
      return Status.error("pod " + key + " not found");
    }
    if (current.getSpec().getNodeName() != null) {
      return Status.error(
          "pod " + key + " is already assigned to " + current.getSpec().getNodeName());
    }
    if (!nodes.containsKey(nodeName)) {
      return Status.error("node " + nodeName + " not found");
    }
    Pod bound = stamps.newVersion(current);
    bound.setSpec(ShallowCopy.of(current.getSpec()));
    bound.getSpec().setNodeName(nodeName);
    if (!metadata.annotations().isEmpty()) {
      bound
          .getMetadata()
          .setAnnotations(
              ObjectStamps.merged(current.getMetadata().getAnnotations(), metadata.annotations()));
    }
    if (!metadata.labels().isEmpty()) {
      bound
          .getMetadata()
          .setLabels(ObjectStamps.merged(current.getMetadata().getLabels(), metadata.labels()));
    }
    stamps.setCondition(bound, "PodScheduled", "True", null, null);
    pods.put(key, bound);
    scheduler.eventHandler().onPodUpdate(current, bound);
    return Status.success();
  }

  /**
   * A plugin's write of an existing object (the volume binder's PV claimRef or PVC annotation): a
   * stale resourceVersion is a conflict, as on an API server. The PV controller's and provisioner's
   * answers to the write ({@link VolumeControllerEmulation}) are stored right after it, so a binder
   * that waits for its claims to be Bound sees them Bound on its next look.
   */
  private Status updateObject(HasMetadata obj) {
    ObjectKind<?> kind = ObjectKind.of(obj);
    HasMetadata current = objects.get(obj);
    if (current == null) {
      String ns = ObjectStore.namespace(kind, obj.getMetadata().getNamespace());
      return Status.error(kind + " " + kind.key(ns, obj.getMetadata().getName()) + " not found");
    }
    String rv = obj.getMetadata().getResourceVersion();
    if (rv != null && !rv.equals(current.getMetadata().getResourceVersion())) {
      return Status.error(
          "conflict updating "
              + kind
              + " "
              + obj.getMetadata().getName()
              + ": resourceVersion "
              + rv
              + " is not the latest "
              + current.getMetadata().getResourceVersion());
    }
    putObject(obj);
    for (HasMetadata o : VolumeControllerEmulation.reconcile(objects.values())) {
      putObject(o);
    }
    return Status.success();
  }

  /** The scheduler's pods/status writes: the PodScheduled condition and the nominated node. */
  private final class Writer implements StatusWriter {
    @Override
    public void podUnschedulable(Pod pod, String reason, String message) {
      writeStatus(pod, reason, message, Map.of(), null);
    }

    @Override
    public CompletionStage<Boolean> podUnschedulable(
        Pod pod,
        String reason,
        String message,
        Map<String, String> annotations,
        @Nullable String nominatedNodeName) {
      writeStatus(pod, reason, message, annotations, nominatedNodeName);
      return CompletableFuture.completedFuture(true);
    }

    @Override
    public void nominatedNodeName(Pod pod, String nodeName) {
      writeStatus(pod, null, null, Map.of(), nodeName);
    }
  }

  /**
   * Writes a pending pod's condition (when {@code reason} is set), the annotations the scheduler's
   * attempt observers asked for, in the same request as the API server writer does, and nominated
   * node (when {@code nominatedNodeName} is set; empty clears it).
   */
  private void writeStatus(
      Pod pod,
      @Nullable String reason,
      @Nullable String message,
      Map<String, String> annotations,
      @Nullable String nominatedNodeName) {
    String key = PodStore.key(pod);
    Pod current = pods.get(key);
    if (current == null || current.getSpec().getNodeName() != null) {
      return;
    }
    Pod updated = stamps.newVersion(current);
    if (reason != null) {
      stamps.setCondition(updated, "PodScheduled", "False", reason, message);
    }
    if (!annotations.isEmpty()) {
      updated
          .getMetadata()
          .setAnnotations(ObjectStamps.merged(updated.getMetadata().getAnnotations(), annotations));
    }
    if (nominatedNodeName != null) {
      updated
          .getStatus()
          .setNominatedNodeName(nominatedNodeName.isEmpty() ? null : nominatedNodeName);
    }
    pods.put(key, updated);
    scheduler.eventHandler().onPodUpdate(current, updated);
  }

  /**
   * Evicts a preemption victim as the API server and kubelet would: the {@code DisruptionTarget}
   * condition, then a graceful deletion that takes the cluster's termination delay (the pod stays,
   * with a deletion timestamp, until {@link #advance} passes it), or none.
   */
  private Status evict(Pod victim, String message) {
    String key = PodStore.key(victim);
    Pod current = pods.get(key);
    if (current == null
        || !current.getMetadata().getUid().equals(victim.getMetadata().getUid())
        || terminating.contains(key)) {
      return Status.success();
    }
    Pod updated = stamps.newVersion(current);
    stamps.setCondition(updated, "DisruptionTarget", "True", PodEvictor.REASON, message);
    if (terminationDelay.isZero()) {
      pods.put(key, updated);
      scheduler.eventHandler().onPodUpdate(current, updated);
      deletePod(updated.getMetadata().getNamespace(), updated.getMetadata().getName());
      return Status.success();
    }
    updated.getMetadata().setDeletionTimestamp(stamps.now());
    pods.put(key, updated);
    terminating.start(key, clock.instant().plus(terminationDelay));
    scheduler.eventHandler().onPodUpdate(current, updated);
    return Status.success();
  }

  /** Deletes the terminating pods whose termination delay has passed. */
  private void finishTerminations() {
    for (String key : terminating.due(clock.instant())) {
      int slash = key.indexOf('/');
      deletePod(key.substring(0, slash), key.substring(slash + 1));
    }
  }

  /** Configures an in-memory cluster. */
  public static final class Builder {
    private final Registry registry;
    private SchedulerConfiguration config = SchedulerConfiguration.defaults();
    private int parallelism = 1;
    private @Nullable Long seed;
    private Instant start = Instant.parse("2026-01-01T00:00:00Z");
    private SchedulingObserver observer = SchedulingObserver.none();
    private boolean recordEvents = true;
    private Duration terminationDelay = Duration.ZERO;

    private Builder(Registry registry) {
      this.registry = registry;
    }

    /** The scheduler configuration (profiles, plugins, backoff); its parallelism is ignored. */
    public Builder config(SchedulerConfiguration c) {
      this.config = c;
      return this;
    }

    /** Filter/Score fan-out threads; 1 (default) keeps every run reproducible. */
    public Builder parallelism(int p) {
      this.parallelism = p;
      return this;
    }

    /** Breaks score ties with a generator seeded by {@code s}; null: first node wins. */
    public Builder seed(@Nullable Long s) {
      this.seed = s;
      return this;
    }

    public Builder startTime(Instant t) {
      this.start = t;
      return this;
    }

    public Builder observer(SchedulingObserver o) {
      this.observer = o;
      return this;
    }

    /**
     * How long a preemption victim takes to terminate: it keeps its node, with a deletion
     * timestamp, until {@link InMemoryCluster#advance} moves the clock past it. Zero (the default)
     * removes it at once.
     */
    public Builder terminationDelay(Duration d) {
      if (d.isNegative()) {
        throw new IllegalArgumentException("terminationDelay " + d + " must not be negative");
      }
      this.terminationDelay = d;
      return this;
    }

    /** Whether to keep Events in memory (default true; benchmarks turn it off). */
    public Builder recordEvents(boolean r) {
      this.recordEvents = r;
      return this;
    }

    /**
     * Builds the cluster.
     *
     * @throws io.hami.framework.config.ConfigException for an invalid profile
     */
    public InMemoryCluster build() {
      return new InMemoryCluster(this);
    }
  }
}
