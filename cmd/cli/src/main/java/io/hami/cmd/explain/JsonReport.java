package io.hami.cmd.explain;

import io.hami.cmd.explain.Explanation.ContainerDevices;
import io.hami.cmd.explain.Explanation.Device;
import io.hami.cmd.explain.Explanation.EventLine;
import io.hami.cmd.explain.Explanation.Lock;
import io.hami.cmd.explain.Explanation.Problem;
import io.hami.model.explain.ScheduleRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Renders an {@link Explanation} as JSON with stable field names; absent values are null. */
final class JsonReport {
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private JsonReport() {}

  static String render(Explanation e) {
    return MAPPER.writeValueAsString(tree(e)) + "\n";
  }

  static Map<String, @Nullable Object> tree(Explanation e) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    m.put("namespace", e.namespace());
    m.put("name", e.name());
    m.put("phase", e.phase());
    m.put("schedulerName", e.schedulerName());
    m.put("nodeName", e.nodeName());
    m.put("state", e.state().name());
    m.put("summary", e.summary());
    Explanation.Condition c = e.condition();
    m.put(
        "podScheduled",
        c == null
            ? null
            : obj(
                "status",
                c.status(),
                "reason",
                c.reason(),
                "message",
                c.message(),
                "lastTransitionTime",
                c.lastTransitionTime()));
    m.put("placement", placement(e.placement()));
    m.put("lastFailure", failure(e.failure()));
    m.put("recordIsStale", e.attemptIsStale());
    Explanation.Binding b = e.binding();
    m.put(
        "binding",
        obj(
            "phase",
            b.phase(),
            "bindTime",
            time(b.bindTime()),
            "vgpuNode",
            b.vgpuNode(),
            "vgpuTime",
            time(b.vgpuTime())));
    List<Object> devices = new ArrayList<>();
    for (ContainerDevices cd : e.devices()) {
      List<Object> ds = new ArrayList<>();
      for (Device d : cd.devices()) {
        ds.add(
            obj(
                "uuid",
                d.uuid(),
                "type",
                d.type(),
                "memMiB",
                d.memMiB(),
                "cores",
                d.cores(),
                "handedOut",
                !d.pending()));
      }
      devices.add(obj("container", cd.container(), "annotation", cd.annotation(), "devices", ds));
    }
    m.put("devices", devices);
    List<Object> locks = new ArrayList<>();
    for (Lock l : e.locks()) {
      Explanation.Holder h = l.holder();
      locks.add(
          obj(
              "node", l.node(),
              "why", l.why(),
              "nodeExists", l.nodeExists(),
              "value", l.value(),
              "heldBySelf", l.heldBySelf(),
              "ageSeconds", l.age() == null ? null : l.age().toSeconds(),
              "expired", l.expired(),
              "holder",
                  h == null
                      ? null
                      : obj(
                          "namespace",
                          h.namespace(),
                          "name",
                          h.name(),
                          "exists",
                          h.exists(),
                          "phase",
                          h.phase(),
                          "nodeName",
                          h.nodeName(),
                          "bindPhase",
                          h.bindPhase(),
                          "deleting",
                          h.deleting())));
    }
    m.put("locks", locks);
    List<Object> events = new ArrayList<>();
    for (EventLine ev : e.events()) {
      events.add(
          obj(
              "type",
              ev.type(),
              "reason",
              ev.reason(),
              "message",
              ev.message(),
              "count",
              ev.count(),
              "from",
              ev.from(),
              "last",
              time(ev.last())));
    }
    m.put("events", events);
    List<Object> problems = new ArrayList<>();
    for (Problem p : e.problems()) {
      problems.add(obj("where", p.where(), "value", p.value(), "error", p.error()));
    }
    m.put("problems", problems);
    return m;
  }

  private static @Nullable Object placement(ScheduleRecord.@Nullable Scheduled s) {
    if (s == null) {
      return null;
    }
    List<Object> top = new ArrayList<>();
    for (ScheduleRecord.NodeScore n : s.top()) {
      top.add(obj("node", n.node(), "score", n.score()));
    }
    return obj(
        "time",
        time(s.time()),
        "node",
        s.node(),
        "score",
        s.score(),
        "nodePolicy",
        s.nodePolicy(),
        "gpuPolicy",
        s.gpuPolicy(),
        "feasible",
        s.feasible(),
        "evaluated",
        s.evaluated(),
        "top",
        top);
  }

  private static @Nullable Object failure(ScheduleRecord.@Nullable Failed f) {
    if (f == null) {
      return null;
    }
    List<Object> reasons = new ArrayList<>();
    for (ScheduleRecord.ReasonCount r : f.reasons()) {
      reasons.add(obj("reason", r.reason(), "nodes", r.nodes()));
    }
    List<Object> closest = new ArrayList<>();
    for (ScheduleRecord.NodeReasons n : f.closest()) {
      closest.add(obj("node", n.node(), "reasons", n.reasons()));
    }
    return obj(
        "time",
        time(f.time()),
        "result",
        f.reason(),
        "chosenNode",
        f.node(),
        "nodes",
        f.nodes(),
        "reasons",
        reasons,
        "moreReasons",
        f.omittedReasons(),
        "closest",
        closest,
        "preemption",
        preemption(f.preemption()));
  }

  private static @Nullable Object preemption(ScheduleRecord.@Nullable Preemption p) {
    if (p == null) {
      return null;
    }
    return obj(
        "nominatedNode",
        p.nominatedNode(),
        "victims",
        p.victims(),
        "moreVictims",
        p.omittedVictims());
  }

  private static @Nullable String time(@Nullable Instant t) {
    return t == null ? null : t.toString();
  }

  private static Map<String, @Nullable Object> obj(@Nullable Object... kv) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(String.valueOf(kv[i]), kv[i + 1]);
    }
    return m;
  }
}
