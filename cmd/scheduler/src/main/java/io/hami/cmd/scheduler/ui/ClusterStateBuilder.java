package io.hami.cmd.scheduler.ui;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.hami.cmd.scheduler.ui.ClusterState.GpuView;
import io.hami.cmd.scheduler.ui.ClusterState.MigInstance;
import io.hami.cmd.scheduler.ui.ClusterState.NodeDetail;
import io.hami.cmd.scheduler.ui.ClusterState.NodeView;
import io.hami.cmd.scheduler.ui.ClusterState.PendingPod;
import io.hami.cmd.scheduler.ui.ClusterState.PodShare;
import io.hami.cmd.scheduler.ui.ClusterState.ProfilePolicy;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PluginArgs;
import io.hami.framework.api.PodInfo;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.device.NodeDevice;
import io.hami.model.device.NodeDeviceColon;
import io.hami.model.device.NodeDeviceJson;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.handshake.Handshake;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.MigAllocation;
import io.hami.model.pod.MigAllocationJson;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Builds the {@link ClusterState} from immutable inputs: the nodes of a cache snapshot, the pending
 * pods of the queue, and each profile's plugin arguments. Stateless; every malformed annotation
 * becomes a note on its node or pod, never an exception.
 *
 * <p>A GPU's usage is what the pods on its node were granted in {@code
 * hami.io/vgpu-devices-allocated} (or {@code ...-to-allocate} while the binding is in flight), the
 * same grants the vGPU plugin counts.
 */
final class ClusterStateBuilder {

  private ClusterStateBuilder() {}

  /**
   * The view of the nodes, sorted by name.
   *
   * @param registerSeen when the current register annotation of a node was first seen, by node
   *     name; may return null
   */
  static List<NodeView> nodes(
      List<NodeInfo> nodes, Function<String, @Nullable Instant> registerSeen) {
    List<NodeView> out = new ArrayList<>(nodes.size());
    for (NodeInfo n : nodes) {
      out.add(node(n, registerSeen.apply(n.name())));
    }
    out.sort(Comparator.comparing(NodeView::name));
    return out;
  }

  static NodeView node(NodeInfo info, @Nullable Instant registerSeen) {
    Node node = info.node();
    Map<String, String> annotations = annotations(node.getMetadata().getAnnotations());
    String register = annotations.get(Annotations.NODE_NVIDIA_REGISTER);
    List<NodeDevice> devices = List.of();
    String problem = null;
    if (register != null) {
      Decoded<List<NodeDevice>> d = decodeRegister(register);
      if (d instanceof Decoded.Ok<List<NodeDevice>> ok) {
        devices = ok.value();
      } else if (d instanceof Decoded.Err<List<NodeDevice>> err) {
        problem =
            Annotations.NODE_NVIDIA_REGISTER
                + ": "
                + err.error().field()
                + ": "
                + err.error().message();
      }
    }
    Map<String, GpuTally> byId = new LinkedHashMap<>();
    for (NodeDevice dev : devices) {
      byId.putIfAbsent(dev.id(), new GpuTally(dev));
    }
    int otherPods = 0;
    for (PodInfo p : info.pods()) {
      if (!tally(p.pod(), byId)) {
        otherPods++;
      }
    }
    List<GpuView> gpus = new ArrayList<>(byId.size());
    for (GpuTally t : byId.values()) {
      gpus.add(t.view());
    }
    gpus.sort(Comparator.comparingInt(GpuView::index).thenComparing(GpuView::id));
    boolean cordoned =
        node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    return new NodeView(
        info.name(),
        cordoned,
        gpus,
        problem,
        otherPods,
        detail(annotations, register == null ? null : registerSeen));
  }

  private static Decoded<List<NodeDevice>> decodeRegister(String value) {
    String v = value.strip();
    return v.startsWith("[") || v.equals("null")
        ? NodeDeviceJson.decode(v)
        : NodeDeviceColon.decode(v);
  }

  static NodeDetail detail(Map<String, String> annotations, @Nullable Instant registerSeen) {
    String lockHolder = null;
    Instant lockSince = null;
    String lock = annotations.get(Annotations.MUTEX_LOCK);
    if (lock != null) {
      Decoded<NodeLock> d = NodeLock.decode(lock);
      if (d instanceof Decoded.Ok<NodeLock> ok) {
        NodeLock l = ok.value();
        lockHolder = l.isTimeOnly() ? "" : l.namespace() + "/" + l.name();
        lockSince = l.time().toInstant();
      } else {
        lockHolder = "(unreadable lock)";
      }
    }
    String handshakeValue = annotations.getOrDefault(Annotations.NODE_HANDSHAKE, "");
    String handshake;
    if (handshakeValue.isEmpty()) {
      handshake = "None";
    } else {
      Handshake h = Handshake.parse(handshakeValue);
      handshake =
          h instanceof Handshake.Requesting
              ? "Requesting"
              : h instanceof Handshake.Deleted ? "Deleted" : "Reported";
    }
    return new NodeDetail(lockHolder, lockSince, handshake, handshakeValue, registerSeen);
  }

  /** Adds the pod's grants to the GPUs they name; whether it holds any GPU of the node. */
  private static boolean tally(Pod pod, Map<String, GpuTally> byId) {
    Map<String, String> a = annotations(pod.getMetadata().getAnnotations());
    String grants = a.get(Annotations.VGPU_DEVICES_ALLOCATED);
    if (grants == null || grants.isBlank()) {
      grants = a.get(Annotations.VGPU_DEVICES_TO_ALLOCATE);
    }
    if (grants == null || grants.isBlank()) {
      return false;
    }
    Decoded<PodDevices> d = PodDevicesCodec.decode(grants);
    if (!(d instanceof Decoded.Ok<PodDevices> ok)) {
      return false;
    }
    String key = key(pod);
    boolean any = false;
    for (List<ContainerDevice> container : ok.value().containers()) {
      for (ContainerDevice dev : container) {
        GpuTally t = byId.get(baseUuid(dev.uuid()));
        if (t != null) {
          t.add(key, dev.usedmem(), dev.usedcores());
          any = true;
        }
      }
    }
    String mig = a.get(Annotations.VGPU_MIG_ALLOCATIONS);
    if (mig != null && MigAllocationJson.decode(mig) instanceof Decoded.Ok<List<MigAllocation>> m) {
      for (MigAllocation alloc : m.value()) {
        GpuTally t = byId.get(alloc.gpuUuid());
        if (t != null) {
          String instance = alloc.runtime().map(MigAllocation.Instance::migUuid).orElse("");
          t.mig.add(new MigInstance(key, alloc.profile(), instance));
        }
      }
    }
    return any;
  }

  /** A template MIG grant names its GPU as {@code GPU-x[t-s]}. */
  private static String baseUuid(String uuid) {
    int bracket = uuid.indexOf('[');
    return bracket < 0 ? uuid : uuid.substring(0, bracket);
  }

  /** The pending pods, oldest first. */
  static List<PendingPod> pending(List<Pod> pods) {
    List<PendingPod> out = new ArrayList<>(pods.size());
    for (Pod p : pods) {
      out.add(pendingPod(p));
    }
    out.sort(
        Comparator.comparing((PendingPod p) -> p.created() == null ? Instant.MAX : p.created())
            .thenComparing(PendingPod::pod));
    return out;
  }

  static PendingPod pendingPod(Pod pod) {
    String reason = "";
    String message = "";
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())) {
          reason = c.getReason() == null ? "" : c.getReason();
          message = c.getMessage() == null ? "" : c.getMessage();
        }
      }
    }
    Instant attempted = null;
    List<String> reasons = new ArrayList<>();
    List<String> closest = new ArrayList<>();
    String explain =
        annotations(pod.getMetadata().getAnnotations()).get(Annotations.SCHEDULE_EXPLAIN);
    if (explain != null
        && ScheduleRecordCodec.decode(explain) instanceof Decoded.Ok<ScheduleRecord> ok
        && ok.value() instanceof ScheduleRecord.Failed f) {
      attempted = f.time();
      for (ScheduleRecord.ReasonCount r : f.reasons()) {
        reasons.add(r.nodes() + " " + r.reason());
      }
      if (f.omittedReasons() > 0) {
        reasons.add("(" + f.omittedReasons() + " more)");
      }
      for (ScheduleRecord.NodeReasons n : f.closest()) {
        closest.add(n.node() + ": " + String.join(", ", n.reasons()));
      }
      if (reason.isEmpty()) {
        reason = f.reason();
      }
    }
    String scheduler = pod.getSpec() == null ? "" : nullToEmpty(pod.getSpec().getSchedulerName());
    return new PendingPod(
        key(pod), scheduler, created(pod), reason, message, attempted, reasons, closest);
  }

  /**
   * The policy of one profile: each plugin's arguments, field by field.
   *
   * @param args plugin name to its arguments, in the order to show
   */
  static ProfilePolicy policy(String schedulerName, Map<String, PluginArgs> args) {
    Map<String, Map<String, String>> plugins = new LinkedHashMap<>();
    args.forEach((name, a) -> plugins.put(name, fields(a)));
    return new ProfilePolicy(schedulerName, plugins);
  }

  /** The record components of {@code args} and their values; empty for a non-record. */
  static Map<String, String> fields(PluginArgs args) {
    Map<String, String> out = new LinkedHashMap<>();
    RecordComponent[] components = args.getClass().getRecordComponents();
    if (components == null) {
      return out;
    }
    for (RecordComponent c : components) {
      try {
        out.put(c.getName(), String.valueOf(c.getAccessor().invoke(args)));
      } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
        out.put(c.getName(), "(unreadable)");
      }
    }
    return out;
  }

  private static @Nullable Instant created(Pod pod) {
    String t = pod.getMetadata().getCreationTimestamp();
    if (t == null || t.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(t);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  static String key(Pod pod) {
    return nullToEmpty(pod.getMetadata().getNamespace())
        + "/"
        + nullToEmpty(pod.getMetadata().getName());
  }

  private static String nullToEmpty(@Nullable String s) {
    return s == null ? "" : s;
  }

  private static Map<String, String> annotations(@Nullable Map<String, String> a) {
    return a == null ? Map.of() : a;
  }

  /** One GPU's grants, summed per pod. */
  private static final class GpuTally {
    final NodeDevice device;
    final Map<String, long[]> byPod = new HashMap<>();
    final List<String> order = new ArrayList<>();
    final List<MigInstance> mig = new ArrayList<>();
    long mem;
    long cores;
    int slots;

    GpuTally(NodeDevice device) {
      this.device = device;
    }

    void add(String pod, int usedmem, int usedcores) {
      long[] s = byPod.get(pod);
      if (s == null) {
        s = new long[3];
        byPod.put(pod, s);
        order.add(pod);
      }
      s[0] += usedmem;
      s[1] += usedcores;
      s[2]++;
      mem += usedmem;
      cores += usedcores;
      slots++;
    }

    GpuView view() {
      List<PodShare> pods = new ArrayList<>(order.size());
      for (String p : order) {
        long[] s = byPod.get(p);
        if (s != null) {
          pods.add(new PodShare(p, s[0], s[1], (int) s[2]));
        }
      }
      pods.sort(Comparator.comparing(PodShare::pod));
      return new GpuView(
          device.id(),
          device.index(),
          device.type(),
          device.numa(),
          device.mode(),
          device.health(),
          mem,
          device.devmem(),
          cores,
          device.devcore(),
          slots,
          device.count(),
          pods,
          mig);
    }
  }
}
