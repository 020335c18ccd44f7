package io.hami.cmd.explain;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.hami.cmd.explain.Explanation.Binding;
import io.hami.cmd.explain.Explanation.Condition;
import io.hami.cmd.explain.Explanation.ContainerDevices;
import io.hami.cmd.explain.Explanation.Device;
import io.hami.cmd.explain.Explanation.EventLine;
import io.hami.cmd.explain.Explanation.Holder;
import io.hami.cmd.explain.Explanation.Lock;
import io.hami.cmd.explain.Explanation.Problem;
import io.hami.cmd.explain.Explanation.State;
import io.hami.kube.PodPhases;
import io.hami.model.Annotations;
import io.hami.model.Decoded;
import io.hami.model.ProtocolError;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecordCodec;
import io.hami.model.lock.NodeLock;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import io.hami.model.pod.PodDevicesCodec;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Turns what was read from the API into an {@link Explanation}. Pure: every annotation is read
 * leniently, and a value that cannot be read becomes a {@link Problem} naming the annotation and
 * the value, never an exception.
 */
final class Explainer {
  private static final String ALLOCATED_SUFFIX = "-devices-allocated";
  private static final String TO_ALLOCATE_SUFFIX = "-devices-to-allocate";

  private Explainer() {}

  /** The nodes worth reading for {@code pod}, each with why. */
  static Map<String, String> nodesToRead(Pod pod) {
    Map<String, String> out = new LinkedHashMap<>();
    String bound = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (bound != null && !bound.isEmpty()) {
      out.put(bound, "the pod's node");
    }
    String vgpu = annotations(pod).get(Annotations.VGPU_NODE);
    if (vgpu != null && !vgpu.isEmpty()) {
      out.putIfAbsent(vgpu, "the node the scheduler chose (" + Annotations.VGPU_NODE + ")");
    }
    String raw = annotations(pod).get(Annotations.SCHEDULE_EXPLAIN);
    Optional<ScheduleRecord> last =
        raw == null ? Optional.empty() : ScheduleRecordCodec.decode(raw).toOptional();
    if (last.isPresent() && last.get() instanceof ScheduleRecord.Failed f && f.node() != null) {
      out.putIfAbsent(f.node(), "chosen in the last attempt, which then failed");
    }
    return out;
  }

  /**
   * The lock holders ({@code ns/name}) named by the given nodes' locks, other than the pod itself.
   */
  static Set<String> holdersToRead(Pod pod, Map<String, Optional<Node>> nodes) {
    Set<String> out = new LinkedHashSet<>();
    for (Optional<Node> n : nodes.values()) {
      String v =
          n.map(x -> annotations(x.getMetadata().getAnnotations()).get(Annotations.MUTEX_LOCK))
              .orElse(null);
      Optional<NodeLock> lock = v == null ? Optional.empty() : NodeLock.decode(v).toOptional();
      if (lock.isEmpty()) {
        continue;
      }
      NodeLock l = lock.get();
      if (!l.namespace().isEmpty()
          && !l.name().isEmpty()
          && !l.isHeldBy(ns(pod), pod.getMetadata().getName())) {
        out.add(l.namespace() + "/" + l.name());
      }
    }
    return out;
  }

  static Explanation explain(PodFacts facts, Instant now) {
    Pod pod = facts.pod();
    Map<String, String> a = annotations(pod);
    List<Problem> problems = new ArrayList<>();
    String phase =
        pod.getStatus() == null || pod.getStatus().getPhase() == null
            ? "Unknown"
            : pod.getStatus().getPhase();
    String nodeName =
        pod.getSpec() == null
                || pod.getSpec().getNodeName() == null
                || pod.getSpec().getNodeName().isEmpty()
            ? null
            : pod.getSpec().getNodeName();
    String schedulerName =
        pod.getSpec() == null || pod.getSpec().getSchedulerName() == null
            ? "default-scheduler"
            : pod.getSpec().getSchedulerName();
    Condition condition = condition(pod);

    ScheduleRecord.Scheduled placement = null;
    ScheduleRecord.Failed failure = null;
    String raw = a.get(Annotations.SCHEDULE_EXPLAIN);
    if (raw != null) {
      Decoded<ScheduleRecord> d = ScheduleRecordCodec.decode(raw);
      if (d instanceof Decoded.Ok<ScheduleRecord> ok) {
        if (ok.value() instanceof ScheduleRecord.Scheduled s) {
          placement = s;
        } else {
          failure = (ScheduleRecord.Failed) ok.value();
        }
      } else {
        problems.add(problem(Annotations.SCHEDULE_EXPLAIN, raw, d));
      }
    }
    boolean stale =
        (nodeName != null && failure != null)
            || (placement != null && nodeName != null && !placement.node().equals(nodeName));

    Binding binding =
        new Binding(
            a.get(Annotations.BIND_PHASE),
            unixTime(a, Annotations.BIND_TIME, problems),
            a.get(Annotations.VGPU_NODE),
            unixTime(a, Annotations.VGPU_TIME, problems));
    if (binding.phase() != null
        && !List.of("allocating", "success", "failed").contains(binding.phase())) {
      problems.add(
          new Problem(
              Annotations.BIND_PHASE, binding.phase(), "not one of allocating, success, failed"));
    }

    List<ContainerDevices> devices = devices(pod, a, problems);
    List<Lock> locks = locks(facts, now, problems);
    List<EventLine> events = events(facts.events());

    State state =
        PodPhases.isGone(pod) ? State.GONE : nodeName != null ? State.SCHEDULED : State.PENDING;
    String nominated =
        pod.getStatus() == null || pod.getStatus().getNominatedNodeName() == null
            ? ""
            : pod.getStatus().getNominatedNodeName();
    String summary =
        state == State.PENDING && !nominated.isEmpty()
            ? nominatedSummary(nominated, failure)
            : summary(state, nodeName, phase, binding, condition, failure, locks, schedulerName);
    return new Explanation(
        ns(pod),
        pod.getMetadata().getName(),
        phase,
        schedulerName,
        nodeName,
        state,
        summary,
        condition,
        placement,
        failure,
        stale,
        binding,
        devices,
        locks,
        events,
        problems);
  }

  /** A pending pod that preemption made room for. */
  private static String nominatedSummary(String node, ScheduleRecord.@Nullable Failed failure) {
    ScheduleRecord.Preemption p = failure == null ? null : failure.preemption();
    if (p == null || !p.nominatedNode().equals(node)) {
      return "waiting: nominated to node " + node + "; it binds there once the room is free";
    }
    int n = p.victims().size() + p.omittedVictims();
    return "waiting: nominated to node "
        + node
        + " after preempting "
        + n
        + " lower-priority pod"
        + (n == 1 ? "" : "s")
        + "; it binds there once they are gone";
  }

  private static String summary(
      State state,
      @Nullable String nodeName,
      String phase,
      Binding binding,
      @Nullable Condition condition,
      ScheduleRecord.@Nullable Failed failure,
      List<Lock> locks,
      String schedulerName) {
    if (state == State.GONE) {
      return nodeName == null
          ? "the pod is " + phase.toLowerCase(Locale.ROOT) + " and was never bound"
          : "the pod ran on " + nodeName + " and is " + phase.toLowerCase(Locale.ROOT);
    }
    if (state == State.SCHEDULED) {
      String bp = binding.phase();
      if ("allocating".equals(bp)) {
        return "bound to "
            + nodeName
            + "; waiting for the node agent to hand out the devices (bind-phase allocating)";
      }
      if ("failed".equals(bp)) {
        return "bound to "
            + nodeName
            + ", but the node agent failed to hand out the devices (bind-phase failed)";
      }
      return "bound to " + nodeName + (bp == null ? "" : " (bind-phase " + bp + ")");
    }
    for (Lock l : locks) {
      boolean chosen = failure != null && l.node().equals(failure.node());
      if (chosen && l.holder() != null && l.value() != null && !l.heldBySelf()) {
        return "waiting: node "
            + l.node()
            + " is locked by "
            + l.holder().namespace()
            + "/"
            + l.holder().name()
            + (l.holder().exists() ? "" : " (deleted; the lock is stale and will be replaced)");
      }
    }
    if (condition != null && "False".equals(condition.status()) && !condition.message().isEmpty()) {
      return "waiting: " + condition.message();
    }
    if (failure != null && !failure.reasons().isEmpty()) {
      return "waiting: "
          + failure.reasons().get(0).nodes()
          + " node(s) "
          + failure.reasons().get(0).reason();
    }
    // Nothing is written while a pod waits at Permit for a node another pod of this scheduler is
    // binding on.
    return "waiting: no failed attempt recorded; either "
        + schedulerName
        + " has not tried the pod yet (is it running?) or the pod waits for a node lock held by a pod being bound";
  }

  private static @Nullable Condition condition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("PodScheduled".equals(c.getType())) {
        return new Condition(
            String.valueOf(c.getStatus()),
            c.getReason() == null ? "" : c.getReason(),
            c.getMessage() == null ? "" : c.getMessage(),
            c.getLastTransitionTime());
      }
    }
    return null;
  }

  private static @Nullable Instant unixTime(
      Map<String, String> a, String key, List<Problem> problems) {
    String v = a.get(key);
    if (v == null) {
      return null;
    }
    try {
      long s = Long.parseLong(v.trim());
      if (s >= 0 && s < 253_402_300_800L) {
        return Instant.ofEpochSecond(s);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(new Problem(key, v, "not a Unix time in seconds"));
    return null;
  }

  /** Devices per container for every vendor's {@code *-devices-allocated} annotation. */
  private static List<ContainerDevices> devices(
      Pod pod, Map<String, String> a, List<Problem> problems) {
    List<String> names = containerNames(pod);
    int inits =
        pod.getSpec() == null || pod.getSpec().getInitContainers() == null
            ? 0
            : pod.getSpec().getInitContainers().size();
    List<ContainerDevices> out = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(a).entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(Annotations.PREFIX) || !key.endsWith(ALLOCATED_SUFFIX)) {
        continue;
      }
      Decoded<PodDevices> allocated = PodDevicesCodec.decode(e.getValue());
      if (!(allocated instanceof Decoded.Ok<PodDevices> ok)) {
        problems.add(problem(key, e.getValue(), allocated));
        continue;
      }
      String toKey =
          key.substring(0, key.length() - ALLOCATED_SUFFIX.length()) + TO_ALLOCATE_SUFFIX;
      String toRaw = a.get(toKey);
      PodDevices toAllocate = null;
      if (toRaw != null) {
        Decoded<PodDevices> d = PodDevicesCodec.decode(toRaw);
        if (d instanceof Decoded.Ok<PodDevices> t) {
          toAllocate = t.value();
        } else {
          problems.add(problem(toKey, toRaw, d));
        }
      }
      PodDevices pd = ok.value();
      // v2.10 may omit the init containers' leading entries: then the entries start at the app
      // containers.
      int offset = pd.size() - 1 == names.size() - inits && inits > 0 ? inits : 0;
      for (int i = 0; i < pd.size(); i++) {
        List<ContainerDevice> c = pd.container(i);
        if (c.isEmpty()) {
          continue;
        }
        List<ContainerDevice> pendingHere =
            toAllocate != null && i < toAllocate.size() ? toAllocate.container(i) : List.of();
        List<Device> ds = new ArrayList<>(c.size());
        for (ContainerDevice d : c) {
          ds.add(
              new Device(d.uuid(), d.type(), d.usedmem(), d.usedcores(), pendingHere.contains(d)));
        }
        int ci = i + offset;
        String container = ci < names.size() ? names.get(ci) : "#" + i + " (no such container)";
        out.add(new ContainerDevices(container, key, ds));
      }
    }
    return out;
  }

  private static List<String> containerNames(Pod pod) {
    List<String> names = new ArrayList<>();
    if (pod.getSpec() != null) {
      if (pod.getSpec().getInitContainers() != null) {
        for (Container c : pod.getSpec().getInitContainers()) {
          names.add(c.getName());
        }
      }
      if (pod.getSpec().getContainers() != null) {
        for (Container c : pod.getSpec().getContainers()) {
          names.add(c.getName());
        }
      }
    }
    return names;
  }

  private static List<Lock> locks(PodFacts facts, Instant now, List<Problem> problems) {
    Pod pod = facts.pod();
    List<Lock> out = new ArrayList<>();
    for (Map.Entry<String, String> e : nodesToRead(pod).entrySet()) {
      String node = e.getKey();
      Optional<Node> n = facts.nodes().getOrDefault(node, Optional.empty());
      if (n.isEmpty()) {
        out.add(new Lock(node, e.getValue(), null, false, null, false, null, false));
        continue;
      }
      String value =
          annotations(n.get().getMetadata().getAnnotations()).get(Annotations.MUTEX_LOCK);
      if (value == null) {
        out.add(new Lock(node, e.getValue(), null, true, null, false, null, false));
        continue;
      }
      Decoded<NodeLock> d = NodeLock.decode(value);
      if (!(d instanceof Decoded.Ok<NodeLock> ok)) {
        problems.add(problem("node " + node + " " + Annotations.MUTEX_LOCK, value, d));
        out.add(new Lock(node, e.getValue(), value, true, null, false, null, false));
        continue;
      }
      NodeLock l = ok.value();
      Duration age = Duration.between(l.time().toInstant(), now);
      boolean expired = l.isExpired(now, NodeLock.DEFAULT_TIMEOUT);
      boolean self = l.isHeldBy(ns(pod), pod.getMetadata().getName());
      Holder holder = null;
      if (!l.isTimeOnly()) {
        Optional<Pod> h =
            self
                ? Optional.of(pod)
                : facts.holders().getOrDefault(l.namespace() + "/" + l.name(), Optional.empty());
        holder =
            h.map(
                    p ->
                        new Holder(
                            l.namespace(),
                            l.name(),
                            true,
                            p.getStatus() == null ? null : p.getStatus().getPhase(),
                            p.getSpec() == null ? null : p.getSpec().getNodeName(),
                            annotations(p).get(Annotations.BIND_PHASE),
                            p.getMetadata().getDeletionTimestamp() != null))
                .orElse(new Holder(l.namespace(), l.name(), false, null, null, null, false));
      }
      out.add(new Lock(node, e.getValue(), value, true, holder, self, age, expired));
    }
    return out;
  }

  private static List<EventLine> events(List<Event> events) {
    List<EventLine> out = new ArrayList<>(events.size());
    for (Event e : events) {
      String from =
          e.getReportingComponent() != null && !e.getReportingComponent().isEmpty()
              ? e.getReportingComponent()
              : e.getSource() != null && e.getSource().getComponent() != null
                  ? e.getSource().getComponent()
                  : "";
      out.add(
          new EventLine(
              e.getType() == null ? "" : e.getType(),
              e.getReason() == null ? "" : e.getReason(),
              e.getMessage() == null ? "" : e.getMessage(),
              e.getCount() == null ? 1 : e.getCount(),
              from,
              eventTime(e)));
    }
    out.sort(
        Comparator.comparing(EventLine::last, Comparator.nullsFirst(Comparator.naturalOrder())));
    return out;
  }

  private static @Nullable Instant eventTime(Event e) {
    for (String t :
        new String[] {
          e.getLastTimestamp(),
          e.getEventTime() == null ? null : e.getEventTime().getTime(),
          e.getFirstTimestamp(),
          e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()
        }) {
      if (t != null && !t.isEmpty()) {
        try {
          return Instant.parse(t);
        } catch (DateTimeParseException ex) {
          // try the next one
        }
      }
    }
    return null;
  }

  private static Problem problem(String where, String value, Decoded<?> d) {
    ProtocolError err = d.failure().orElseThrow();
    return new Problem(where, value, err.toString());
  }

  private static String ns(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    return ns == null ? "default" : ns;
  }

  private static Map<String, String> annotations(Pod pod) {
    return annotations(pod.getMetadata().getAnnotations());
  }

  private static Map<String, String> annotations(@Nullable Map<String, String> a) {
    return a == null ? Map.of() : a;
  }
}
