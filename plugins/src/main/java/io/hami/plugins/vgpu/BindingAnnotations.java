package io.hami.plugins.vgpu;

import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeSelection;
import io.hami.model.Annotations;
import io.hami.model.BindPhase;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The pod annotations that record a placement (protocol §6.9, §6.10 and §8.3), as values. */
public final class BindingAnnotations {

  private BindingAnnotations() {}

  /** The annotations of a placement, default vendors. */
  public static Map<String, String> of(Placement p, long epochSeconds) {
    return of(p, Instant.ofEpochSecond(epochSeconds), GpuVendors.accounted());
  }

  /**
   * The pod annotations that record a placement: {@code hami.io/vgpu-node} and {@code vgpu-time},
   * each vendor's {@code devices-to-allocate} and {@code devices-allocated} (one entry per
   * container, init first, empty for containers without that vendor's devices) with the vendor's
   * extras (Cambricon's profile, Ascend's runtime info), then {@code bind-phase} and {@code
   * bind-time}.
   */
  public static Map<String, String> of(Placement p, Instant now, List<GpuVendor> vendors) {
    Map<String, String> out = new LinkedHashMap<>();
    String secs = Long.toString(now.getEpochSecond());
    out.put(Annotations.VGPU_NODE, p.node());
    out.put(Annotations.VGPU_TIME, secs);
    for (GpuVendor v : vendors) {
      PodDevices devices = devicesOf(p, v);
      if (devices != null) {
        out.putAll(v.allocationAnnotations(devices, now));
      }
    }
    List<MigAllocation> mig = migAllocations(p);
    if (!mig.isEmpty()) {
      out.put(Annotations.VGPU_MIG_ALLOCATIONS, MigAllocationJson.encode(mig));
    }
    out.put(Annotations.BIND_PHASE, BindPhase.ALLOCATING.wire());
    out.put(Annotations.BIND_TIME, secs);
    return out;
  }

  /** The vendor's devices of each container, or null when the placement holds none of them. */
  private static @Nullable PodDevices devicesOf(Placement p, GpuVendor v) {
    List<List<ContainerDevice>> containers = new ArrayList<>(p.containers().size());
    boolean any = false;
    for (List<DevicePick> picks : p.containers()) {
      List<ContainerDevice> c = new ArrayList<>(picks.size());
      for (DevicePick d : picks) {
        if (d.vendor().equals(v.word())) {
          c.add(new ContainerDevice(d.id(), d.vendor(), d.memMiB(), d.cores()));
        }
      }
      any |= !c.isEmpty();
      containers.add(c);
    }
    return any ? new PodDevices(containers) : null;
  }

  /**
   * The dynamic MIG instances of a placement (protocol §8.3), scheduler fields only: the device
   * index is the pick's position within its container's entry of its vendor's annotation.
   */
  static List<MigAllocation> migAllocations(Placement p) {
    List<MigAllocation> out = new ArrayList<>();
    for (int c = 0; c < p.containers().size(); c++) {
      Map<String, Integer> position = new HashMap<>();
      for (DevicePick d : p.containers().get(c)) {
        int at = position.merge(d.vendor(), 1, Integer::sum) - 1;
        if (d.mig() != null) {
          out.add(
              new MigAllocation(
                  c, at, d.id(), d.mig().profile(), d.mig().placement(), Optional.empty()));
        }
      }
    }
    return out;
  }

  /**
   * What {@code hami explain} shows for the placement: the policies and how the node was chosen.
   */
  static ScheduleRecord.Scheduled scheduledRecord(CycleState state, String nodeName, Instant now) {
    PodDeviceRequests r = state.get(VgpuPlugin.REQUESTS);
    PodGpuOptions o = r == null ? PodGpuOptions.DEFAULT : r.options();
    String gpuPolicy = o.gpuPolicy().wireName() + (o.numaBind() ? ",numa-bind" : "");
    NodeSelection sel = state.get(NodeSelection.KEY);
    if (sel == null) {
      return new ScheduleRecord.Scheduled(
          now, nodeName, null, o.nodePolicy().wireName(), gpuPolicy, 0, 0, List.of());
    }
    List<ScheduleRecord.NodeScore> top = new ArrayList<>(sel.top().size());
    for (NodeSelection.Candidate c : sel.top()) {
      top.add(new ScheduleRecord.NodeScore(c.node(), c.score()));
    }
    return new ScheduleRecord.Scheduled(
        now,
        nodeName,
        sel.score(),
        o.nodePolicy().wireName(),
        gpuPolicy,
        sel.feasible(),
        sel.evaluated(),
        top);
  }
}
