package io.hami.cmd.explain;

import io.hami.cmd.explain.Explanation.ContainerDevices;
import io.hami.cmd.explain.Explanation.Device;
import io.hami.cmd.explain.Explanation.EventLine;
import io.hami.cmd.explain.Explanation.Holder;
import io.hami.cmd.explain.Explanation.Lock;
import io.hami.cmd.explain.Explanation.Problem;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** Renders an {@link Explanation} as {@code kubectl describe}-style sections. */
final class TextReport {
  private final StringBuilder b = new StringBuilder();
  private final Instant now;

  private TextReport(Instant now) {
    this.now = now;
  }

  static String render(Explanation e, Instant now) {
    return new TextReport(now).write(e);
  }

  private String write(Explanation e) {
    field(0, "Pod", e.namespace() + "/" + e.name());
    field(0, "Scheduler", e.schedulerName());
    field(0, "Phase", e.phase());
    field(0, "Node", e.nodeName() == null ? "<none>" : e.nodeName());
    field(0, "Result", e.summary());
    if (e.condition() != null) {
      Explanation.Condition c = e.condition();
      field(
          0,
          "PodScheduled",
          c.status()
              + (c.reason().isEmpty() ? "" : " (" + c.reason() + ")")
              + (c.lastTransitionTime() == null ? "" : " since " + c.lastTransitionTime()));
      if (!c.message().isEmpty()) {
        field(2, "Message", c.message());
      }
    }
    placement(e);
    failure(e);
    binding(e);
    devices(e);
    locks(e);
    events(e);
    problems(e);
    return b.toString();
  }

  private void placement(Explanation e) {
    ScheduleRecord.Scheduled s = e.placement();
    if (s == null) {
      return;
    }
    section(
        "Placement" + (e.attemptIsStale() ? " (recorded before the pod's current binding)" : ""));
    field(
        2,
        "Node",
        s.node()
            + (s.score() == null
                ? " (the only feasible node; not scored)"
                : ", score " + s.score()));
    field(2, "Policy", "node " + orDash(s.nodePolicy()) + ", GPU " + orDash(s.gpuPolicy()));
    if (s.evaluated() > 0) {
      field(2, "Candidates", s.feasible() + " feasible of " + s.evaluated() + " evaluated");
    }
    field(2, "At", s.time() + " (" + ago(s.time()) + ")");
    if (!s.top().isEmpty()) {
      line(2, "Top scores:");
      for (ScheduleRecord.NodeScore n : s.top()) {
        line(
            4,
            String.format(
                "%-6d %s%s", n.score(), n.node(), n.node().equals(s.node()) ? "  <- chosen" : ""));
      }
    }
  }

  private void failure(Explanation e) {
    ScheduleRecord.Failed f = e.failure();
    if (f == null) {
      return;
    }
    section("Last failed attempt" + (e.attemptIsStale() ? " (before the pod was bound)" : ""));
    field(2, "Result", f.reason() + " at " + f.time() + " (" + ago(f.time()) + ")");
    field(2, "Nodes", Integer.toString(f.nodes()));
    if (f.node() != null) {
      field(2, "Chosen node", f.node() + " (a step after Filter failed there)");
    }
    if (!f.reasons().isEmpty()) {
      line(2, "Nodes per reason:");
      for (ScheduleRecord.ReasonCount r : f.reasons()) {
        line(4, String.format("%-6d %s", r.nodes(), r.reason()));
      }
      if (f.omittedReasons() > 0) {
        line(4, "(" + f.omittedReasons() + " more reasons not recorded)");
      }
    }
    if (!f.closest().isEmpty()) {
      line(2, "Closest nodes (fewest reasons):");
      for (ScheduleRecord.NodeReasons n : f.closest()) {
        line(4, n.node() + ": " + String.join(", ", n.reasons()));
      }
    }
    ScheduleRecord.Preemption p = f.preemption();
    if (p != null) {
      field(2, "Preemption", "nominated to " + p.nominatedNode());
      int evicted = p.victims().size() + p.omittedVictims();
      line(2, "Evicted (" + evicted + " lower-priority pod" + (evicted == 1 ? "" : "s") + "):");
      for (String v : p.victims()) {
        line(4, v);
      }
      if (p.omittedVictims() > 0) {
        line(4, "(" + p.omittedVictims() + " more not recorded)");
      }
    }
  }

  private void binding(Explanation e) {
    Explanation.Binding bd = e.binding();
    if (bd.phase() == null
        && bd.bindTime() == null
        && bd.vgpuNode() == null
        && bd.vgpuTime() == null) {
      return;
    }
    section("Binding");
    field(2, "Phase", bd.phase() == null ? "<none>" : bd.phase());
    if (bd.vgpuNode() != null) {
      field(2, "Devices on", bd.vgpuNode());
    }
    if (bd.vgpuTime() != null) {
      field(2, "Placed at", bd.vgpuTime() + " (" + ago(bd.vgpuTime()) + ")");
    }
    if (bd.bindTime() != null) {
      field(2, "Bound at", bd.bindTime() + " (" + ago(bd.bindTime()) + ")");
    }
  }

  private void devices(Explanation e) {
    if (e.devices().isEmpty()) {
      return;
    }
    section("Devices");
    for (ContainerDevices c : e.devices()) {
      line(2, "Container " + c.container() + " (" + c.annotation() + "):");
      for (Device d : c.devices()) {
        line(
            4,
            String.format(
                "%s  %s  %d MiB  %d%% cores  %s",
                d.uuid(),
                d.type(),
                d.memMiB(),
                d.cores(),
                d.pending() ? "waiting for the node agent" : "handed out"));
      }
    }
  }

  private void locks(Explanation e) {
    if (e.locks().isEmpty()) {
      return;
    }
    section("Node locks (" + Annotations.MUTEX_LOCK + ")");
    for (Lock l : e.locks()) {
      String head = l.node() + " (" + l.why() + "): ";
      if (!l.nodeExists()) {
        line(2, head + "node not found");
      } else if (l.value() == null) {
        line(2, head + "unlocked");
      } else if (l.age() == null) {
        line(2, head + "locked, value unreadable: " + l.value());
      } else {
        String age =
            "held "
                + duration(l.age())
                + (l.expired() ? ", expired (the next bind replaces it)" : "");
        Holder h = l.holder();
        if (h == null) {
          line(2, head + "locked without a holder name (" + age + ")");
        } else if (l.heldBySelf()) {
          line(2, head + "held by this pod (" + age + ")");
        } else {
          line(2, head + "held by " + h.namespace() + "/" + h.name() + " (" + age + ")");
          line(4, holderState(h));
        }
        line(4, "value: " + l.value());
      }
    }
  }

  private static String holderState(Holder h) {
    if (!h.exists()) {
      return "holder: deleted, so the lock is stale and the next bind replaces it";
    }
    StringBuilder s =
        new StringBuilder("holder: ").append(h.phase() == null ? "Unknown" : h.phase());
    s.append(h.nodeName() == null ? ", not bound" : ", bound to " + h.nodeName());
    s.append(", bind-phase ").append(h.bindPhase() == null ? "<none>" : h.bindPhase());
    if (h.deleting()) {
      s.append(", being deleted");
    }
    return s.toString();
  }

  private void events(Explanation e) {
    section("Events");
    if (e.events().isEmpty()) {
      line(2, "<none>");
      return;
    }
    line(2, String.format("%-8s %-20s %-8s %-20s %s", "Type", "Reason", "Age", "From", "Message"));
    for (EventLine ev : e.events()) {
      String age = ev.last() == null ? "<unknown>" : duration(Duration.between(ev.last(), now));
      String msg = ev.message() + (ev.count() > 1 ? " (x" + ev.count() + ")" : "");
      line(
          2,
          String.format("%-8s %-20s %-8s %-20s %s", ev.type(), ev.reason(), age, ev.from(), msg));
    }
  }

  private void problems(Explanation e) {
    if (e.problems().isEmpty()) {
      return;
    }
    section("Unreadable annotations");
    for (Problem p : e.problems()) {
      line(2, p.where() + ": " + p.error());
      line(4, "value: " + shorten(p.value()));
    }
  }

  private String ago(Instant t) {
    return duration(Duration.between(t, now)) + " ago";
  }

  /** {@code 45s}, {@code 3m12s}, {@code 2h5m}, {@code 3d4h}, as kubectl prints ages. */
  static String duration(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
    }
    if (s < 86_400) {
      return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
    }
    return s / 86_400 + "d" + (s % 86_400 / 3600 == 0 ? "" : s % 86_400 / 3600 + "h");
  }

  private static String shorten(String v) {
    return v.length() <= 200 ? v : v.substring(0, 197) + "...";
  }

  private static String orDash(@Nullable String s) {
    return s == null || s.isEmpty() ? "-" : s;
  }

  private void section(String title) {
    b.append('\n').append(title).append(":\n");
  }

  private void field(int indent, String name, String value) {
    b.append(" ".repeat(indent))
        .append(String.format("%-" + Math.max(1, 15 - indent) + "s", name + ":"))
        .append(' ')
        .append(value)
        .append('\n');
  }

  private void line(int indent, String text) {
    b.append(" ".repeat(indent)).append(text).append('\n');
  }
}
