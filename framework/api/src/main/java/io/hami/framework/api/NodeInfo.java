package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An immutable view of one node as the scheduler sees it: the Node object (labels, annotations,
 * taints, allocatable), the pods accounted on it including assumed ones, their summed requests, the
 * host ports in use, and a generation that grows whenever any of these change.
 *
 * <p>Instances are values: every {@code with*} method returns a new instance and leaves this one
 * untouched, so a NodeInfo handed to a plugin never changes under it. The scheduler cache bumps the
 * generation on every change; plugins may use {@code (name, generation)} as a cache key for state
 * derived from the node, or keep it on the instance itself in a {@link NodeLocal} slot.
 */
public final class NodeInfo {
  private final Node node;
  private final String name;
  private final ImmutableList<PodInfo> pods;
  private final Resources allocatable;
  private final Resources requested;
  private final Resources nonZeroRequested;
  private final ImmutableList<HostPort> usedPorts;
  private final long generation;
  private final List<Taint> taints;
  private final boolean unschedulable;
  private final Map<String, String> labels;
  // Derived data kept on this instance (NodeLocal); not part of the value.
  private final @Nullable Object[] locals = new Object[NodeLocal.MAX];
  private static final VarHandle LOCAL = MethodHandles.arrayElementVarHandle(Object[].class);

  /** The pods on a node and what they add up to; unpacked into the NodeInfo's own fields. */
  private record Usage(
      ImmutableList<PodInfo> pods,
      Resources requested,
      Resources nonZeroRequested,
      ImmutableList<HostPort> usedPorts) {}

  private NodeInfo(Node node, Resources allocatable, Usage usage, long generation) {
    this.node = node;
    this.name = node.getMetadata().getName();
    this.allocatable = allocatable;
    this.pods = usage.pods();
    this.requested = usage.requested();
    this.nonZeroRequested = usage.nonZeroRequested();
    this.usedPorts = usage.usedPorts();
    this.generation = generation;
    // Copied out of the Node so that Filter does not chase pointers through it for every node.
    List<Taint> t = node.getSpec() == null ? null : node.getSpec().getTaints();
    this.taints = t == null || t.isEmpty() ? List.of() : t;
    this.unschedulable =
        node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    Map<String, String> l = node.getMetadata().getLabels();
    this.labels = l == null ? Map.of() : l;
  }

  /**
   * Creates a node info with no pods and generation 0.
   *
   * @throws IllegalArgumentException if the node has no name or an unparsable allocatable
   */
  public static NodeInfo of(Node node) {
    requireNonNull(node, "node");
    if (node.getMetadata() == null || node.getMetadata().getName() == null) {
      throw new IllegalArgumentException("node has no metadata.name");
    }
    return new NodeInfo(
        node,
        allocatableOf(node),
        new Usage(ImmutableList.of(), Resources.empty(), Resources.empty(), ImmutableList.of()),
        0);
  }

  /**
   * Creates a node info holding {@code pods}, summing their requests once; generation 0.
   *
   * @throws IllegalArgumentException if the node has no name or an unparsable allocatable
   */
  public static NodeInfo of(Node node, Collection<PodInfo> pods) {
    NodeInfo empty = of(node);
    if (pods.isEmpty()) {
      return empty;
    }
    Resources.Builder req = Resources.builder();
    Resources.Builder nonZero = Resources.builder();
    ImmutableList.Builder<HostPort> ports = ImmutableList.builder();
    for (PodInfo p : pods) {
      req.add(p.requests());
      nonZero.add(p.nonZeroRequests());
      ports.addAll(p.hostPorts());
    }
    return new NodeInfo(
        node,
        empty.allocatable,
        new Usage(ImmutableList.copyOf(pods), req.build(), nonZero.build(), ports.build()),
        0);
  }

  private static Resources allocatableOf(Node node) {
    NodeStatus status = node.getStatus();
    if (status == null) {
      return Resources.empty();
    }
    Map<String, Quantity> alloc = status.getAllocatable();
    if (alloc == null || alloc.isEmpty()) {
      alloc = status.getCapacity();
    }
    try {
      return Resources.of(alloc);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "node " + node.getMetadata().getName() + " status.allocatable: " + e.getMessage(), e);
    }
  }

  /** Returns a copy holding {@code newNode} (same name) with the same pods. */
  public NodeInfo withNode(Node newNode) {
    return new NodeInfo(newNode, allocatableOf(newNode), usage(), generation);
  }

  /** Returns a copy with {@code pod} added; a pod with the same UID is replaced. */
  public NodeInfo withPod(PodInfo pod) {
    NodeInfo base = podIndex(pod.uid()) >= 0 ? withoutPod(pod.uid()) : this;
    ImmutableList<PodInfo> newPods =
        ImmutableList.<PodInfo>builderWithExpectedSize(base.pods.size() + 1)
            .addAll(base.pods)
            .add(pod)
            .build();
    ImmutableList<HostPort> ports = base.usedPorts;
    if (!pod.hostPorts().isEmpty()) {
      ports = ImmutableList.<HostPort>builder().addAll(ports).addAll(pod.hostPorts()).build();
    }
    return new NodeInfo(
        node,
        allocatable,
        new Usage(
            newPods,
            base.requested.plus(pod.requests()),
            base.nonZeroRequested.plus(pod.nonZeroRequests()),
            ports),
        generation);
  }

  /** Returns a copy without the pod of {@code uid}; this instance if there is none. */
  public NodeInfo withoutPod(String uid) {
    int i = podIndex(uid);
    if (i < 0) {
      return this;
    }
    PodInfo removed = pods.get(i);
    ImmutableList.Builder<PodInfo> b = ImmutableList.builderWithExpectedSize(pods.size() - 1);
    for (int j = 0; j < pods.size(); j++) {
      if (j != i) {
        b.add(pods.get(j));
      }
    }
    ImmutableList<HostPort> ports = usedPorts;
    if (!removed.hostPorts().isEmpty()) {
      ImmutableList.Builder<HostPort> pb = ImmutableList.builder();
      for (int j = 0; j < pods.size(); j++) {
        if (j != i) {
          pb.addAll(pods.get(j).hostPorts());
        }
      }
      ports = pb.build();
    }
    return new NodeInfo(
        node,
        allocatable,
        new Usage(
            b.build(),
            requested.minus(removed.requests()),
            nonZeroRequested.minus(removed.nonZeroRequests()),
            ports),
        generation);
  }

  /** Returns a copy with the given generation. */
  public NodeInfo withGeneration(long newGeneration) {
    return new NodeInfo(node, allocatable, usage(), newGeneration);
  }

  private Usage usage() {
    return new Usage(pods, requested, nonZeroRequested, usedPorts);
  }

  private int podIndex(String uid) {
    for (int i = 0; i < pods.size(); i++) {
      if (uid.equals(pods.get(i).uid())) {
        return i;
      }
    }
    return -1;
  }

  /** Returns the pod of {@code uid} on this node, or null. */
  public @Nullable PodInfo pod(String uid) {
    int i = podIndex(uid);
    return i < 0 ? null : pods.get(i);
  }

  /** The Node object, with its labels, annotations, taints and status. Do not mutate it. */
  public Node node() {
    return node;
  }

  public String name() {
    return name;
  }

  /** The node's taints ({@code spec.taints}), never null. */
  public List<Taint> taints() {
    return taints;
  }

  /** Whether the node is cordoned ({@code spec.unschedulable}). */
  public boolean unschedulable() {
    return unschedulable;
  }

  /** The node's labels, never null. */
  public Map<String, String> labels() {
    return labels;
  }

  /** The pods accounted on this node: bound, binding and assumed. */
  public ImmutableList<PodInfo> pods() {
    return pods;
  }

  /** The node's allocatable resources (capacity when allocatable is not reported). */
  public Resources allocatable() {
    return allocatable;
  }

  /** The sum of the effective requests of {@link #pods()}. */
  public Resources requested() {
    return requested;
  }

  /** The sum of the pods' requests with scoring defaults for best-effort containers. */
  public Resources nonZeroRequested() {
    return nonZeroRequested;
  }

  /** The host ports claimed by {@link #pods()}. */
  public ImmutableList<HostPort> usedPorts() {
    return usedPorts;
  }

  /** Increases on every change of the node or its pods; unique across nodes of one cache. */
  public long generation() {
    return generation;
  }

  /** What is kept in {@code slot} on this instance, or null. */
  @SuppressWarnings("unchecked")
  public <T> @Nullable T local(NodeLocal<T> slot) {
    return (T) LOCAL.getAcquire(locals, slot.index);
  }

  /**
   * Keeps {@code value} in {@code slot} on this instance (a copy made by a {@code with*} method
   * starts empty). The value must be derived from this instance only, or be checked by its reader
   * against whatever else it depends on.
   */
  public <T> void setLocal(NodeLocal<T> slot, T value) {
    LOCAL.setRelease(locals, slot.index, value);
  }

  @Override
  public String toString() {
    return "NodeInfo{" + name + ", pods=" + pods.size() + ", generation=" + generation + "}";
  }
}
