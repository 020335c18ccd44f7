package io.hami.nodeagent.deviceplugin;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.device.MigPlacement;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.health.GpuInventory;
import io.hami.nodeagent.nvml.MigInstance;
import io.hami.nodeagent.nvml.MigProfileInfo;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dynamic MIG instances on this node's GPUs (spec §8.3): created at Allocate at the placement
 * the scheduler chose, and destroyed once no pod on the node holds their placement any more. In MIG
 * mode the agent owns the GPUs' MIG layout: the scheduler counts a placement free unless a pod
 * holds it, so an instance nobody holds would only make a later allocation fail.
 *
 * <p>Concurrency: creation and reaping are serialised on this object, and a reap lists the pods
 * after taking the lock, so an instance created by an Allocate is either seen with its pod or not
 * created yet.
 */
public final class MigInstances {
  private static final Logger log = LoggerFactory.getLogger(MigInstances.class);

  private final Nvml nvml;
  private final GpuInventory inventory;

  /**
   * Instances no pod held at the last pass. An instance is destroyed only when two passes in a row
   * find it unheld, so that one wrong pod list (an empty answer, a pod missing from it) never
   * destroys an instance a running container uses.
   */
  @GuardedBy("this")
  private Set<String> unheldLastPass = new HashSet<>();

  public MigInstances(Nvml nvml, GpuInventory inventory) {
    this.nvml = nvml;
    this.inventory = inventory;
  }

  /** An instance handed out by {@link #ensure}, and whether this call created it. */
  record Ensured(MigInstance instance, boolean created) {}

  /**
   * The instance for one allocation: the existing one at exactly that placement and profile when no
   * other pod claims it (a retried Allocate), else a new one.
   *
   * @param who the pod and container, for messages
   * @param claimed MIG UUIDs other pods on the node hold, with the pod's name
   */
  synchronized Ensured ensure(String who, MigAllocation a, Map<String, String> claimed)
      throws AllocationException {
    String where =
        "MIG "
            + a.profile()
            + " at placement "
            + a.placement().start()
            + ":"
            + a.placement().size()
            + " on GPU "
            + a.gpuUuid();
    int index = index(a.gpuUuid(), who, where);
    try {
      MigProfileInfo profile = profile(index, a.profile(), who, where);
      for (MigInstance i : nvml.migInstances(index)) {
        if (!MigInstance.overlap(i.placement(), a.placement())) {
          continue;
        }
        String owner = claimed.get(i.migUuid());
        if (owner == null
            && i.usable()
            && i.profileId() == profile.profileId()
            && i.placement().equals(a.placement())) {
          log.info("reusing MIG instance {} for {} uuid={}", where, who, i.migUuid());
          return new Ensured(i, false);
        }
        if (owner == null && !i.usable()) {
          // A GPU instance left without its compute instance (a create cut short): start over.
          nvml.destroyMigInstance(index, i.gpuInstanceId(), -1);
          continue;
        }
        throw new AllocationException(
            who
                + ": "
                + where
                + " is taken by instance "
                + describe(i)
                + (owner == null ? "" : " of pod " + owner));
      }
      MigInstance made = nvml.createMigInstance(index, profile.profileId(), a.placement());
      log.info("created MIG instance {} for {} uuid={}", where, who, made.migUuid());
      return new Ensured(made, true);
    } catch (NvmlException e) {
      throw new AllocationException(who + ": cannot create " + where + ": " + e.getMessage(), e);
    }
  }

  /** Destroys an instance this agent just created for an Allocate that then failed. */
  synchronized void release(String gpuUuid, MigInstance i) {
    try {
      int index = index(gpuUuid, "release", gpuUuid);
      nvml.destroyMigInstance(index, i.gpuInstanceId(), i.computeInstanceId());
      log.info(
          "destroyed MIG instance {} on GPU {} after a failed allocation", describe(i), gpuUuid);
    } catch (AllocationException | NvmlException e) {
      log.warn(
          "cannot destroy MIG instance {} on GPU {}: {}", describe(i), gpuUuid, e.getMessage());
    }
  }

  /**
   * Destroys every instance whose placement no live pod on the node held in this pass and the one
   * before; returns how many were destroyed. An instance still in use is left for the next pass.
   *
   * @param podsOnNode lists the pods bound to this node (called once, under the lock)
   */
  public synchronized int reap(Supplier<List<Pod>> podsOnNode) {
    Set<String> held = new HashSet<>();
    for (Pod p : podsOnNode.get()) {
      // A pod being deleted keeps its instance through its grace period: its containers may run.
      if (PodPhases.isTerminal(p)) {
        continue;
      }
      for (MigAllocation a : allocations(p)) {
        held.add(key(a.gpuUuid(), a.placement()));
      }
    }
    int destroyed = 0;
    Set<String> unheld = new HashSet<>();
    for (Gpu g : inventory.snapshot()) {
      List<MigInstance> on;
      try {
        on = nvml.migInstances(g.index());
      } catch (NvmlException e) {
        log.warn("cannot list MIG instances on GPU {}: {}", g.uuid(), e.getMessage());
        continue;
      }
      for (MigInstance i : on) {
        if (held.contains(key(g.uuid(), i.placement()))) {
          continue;
        }
        String instance = instanceKey(g.uuid(), i);
        if (!unheldLastPass.contains(instance)) {
          unheld.add(instance);
          log.info(
              "MIG instance {} on GPU {} is held by no pod; destroying it if the next pass agrees",
              describe(i),
              g.uuid());
          continue;
        }
        try {
          nvml.destroyMigInstance(g.index(), i.gpuInstanceId(), i.computeInstanceId());
          destroyed++;
          log.info("destroyed MIG instance {} on GPU {}: no pod holds it", describe(i), g.uuid());
        } catch (NvmlException e) {
          unheld.add(instance);
          log.warn(
              "cannot destroy MIG instance {} on GPU {}, retrying later: {}",
              describe(i),
              g.uuid(),
              e.getMessage());
        }
      }
    }
    unheldLastPass = unheld;
    return destroyed;
  }

  /** The pod's MIG allocations; none when it has no or an unreadable annotation. */
  public static List<MigAllocation> allocations(Pod p) {
    String raw = Allocator.annotation(p, Annotations.VGPU_MIG_ALLOCATIONS);
    if (raw == null) {
      return List.of();
    }
    Decoded<List<MigAllocation>> d = MigAllocationJson.decode(raw);
    if (d instanceof Decoded.Err<List<MigAllocation>> e) {
      log.warn(
          "ignoring malformed {} on pod {}/{}: {}",
          Annotations.VGPU_MIG_ALLOCATIONS,
          p.getMetadata().getNamespace(),
          p.getMetadata().getName(),
          e.error());
      return List.of();
    }
    return d.orElse(List.of());
  }

  private int index(String gpuUuid, String who, String where) throws AllocationException {
    for (Gpu g : inventory.snapshot()) {
      if (g.uuid().equals(gpuUuid)) {
        return g.index();
      }
    }
    throw new AllocationException(who + ": " + where + ": the GPU is not served by this node");
  }

  private MigProfileInfo profile(int index, String name, String who, String where)
      throws NvmlException, AllocationException {
    List<String> names = new ArrayList<>();
    for (MigProfileInfo p : nvml.migProfiles(index)) {
      if (p.name().equals(name)) {
        return p;
      }
      names.add(p.name());
    }
    throw new AllocationException(
        who + ": " + where + ": the GPU offers no profile " + name + " (offers " + names + ")");
  }

  private static String instanceKey(String gpuUuid, MigInstance i) {
    return key(gpuUuid, i.placement()) + "/" + i.gpuInstanceId() + "/" + i.computeInstanceId();
  }

  private static String key(String gpuUuid, MigPlacement at) {
    return gpuUuid + "@" + at.start() + ":" + at.size();
  }

  private static String describe(MigInstance i) {
    return (i.migUuid().isEmpty() ? "" : i.migUuid() + " ")
        + "(GI "
        + i.gpuInstanceId()
        + ", CI "
        + i.computeInstanceId()
        + ", placement "
        + i.placement().start()
        + ":"
        + i.placement().size()
        + ")";
  }

  /** The instance as the annotation records it. */
  static MigAllocation withRuntime(MigAllocation a, MigInstance i) {
    return new MigAllocation(
        a.containerIndex(),
        a.deviceIndex(),
        a.gpuUuid(),
        a.profile(),
        a.placement(),
        Optional.of(
            new MigAllocation.Instance(i.migUuid(), i.gpuInstanceId(), i.computeInstanceId())));
  }

  static @Nullable MigAllocation find(List<MigAllocation> all, int container, int device) {
    for (MigAllocation a : all) {
      if (a.containerIndex() == container && a.deviceIndex() == device) {
        return a;
      }
    }
    return null;
  }
}
