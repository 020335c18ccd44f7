package io.hami.model.explain;

import io.hami.model.Decoded;
import io.hami.model.explain.ScheduleRecord.Failed;
import io.hami.model.explain.ScheduleRecord.NodeReasons;
import io.hami.model.explain.ScheduleRecord.NodeScore;
import io.hami.model.explain.ScheduleRecord.Preemption;
import io.hami.model.explain.ScheduleRecord.ReasonCount;
import io.hami.model.explain.ScheduleRecord.Scheduled;
import io.hami.model.internal.GoJson;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code hami.io/schedule-explain} value: compact JSON, at most {@value #MAX_BYTES} bytes.
 *
 * <pre>
 * {"v":1,"result":"Unschedulable","time":"2026-11-29T13:53:11Z","nodes":12,
 *  "reasons":{"CardInsufficientMemory":10,"node(s) had untolerated taint":2},
 *  "closest":{"gpu-1":["CardInsufficientMemory"]}}
 * {"v":1,"result":"Scheduled","time":"2026-11-29T13:53:11Z","node":"gpu-3","score":187,
 *  "nodePolicy":"binpack","gpuPolicy":"spread","feasible":12,"evaluated":12,"top":{"gpu-3":187,"gpu-1":150}}
 * </pre>
 *
 * <p>A failed record may add {@code "node"} (chosen before a later step failed), {@code
 * "moreReasons"} (reasons left out), and, when preemption made room, {@code "nominated"} (the node
 * held for the pod), {@code "victims"} ({@code namespace/name} of the evicted pods) and {@code
 * "moreVictims"}. Encoding shortens long strings and drops the least useful entries (last closest
 * nodes, then last candidates or least frequent reasons) until the value fits. Decoding never
 * throws: a malformed value is an {@link Decoded.Err} naming the field.
 */
public final class ScheduleRecordCodec {

  /** Largest encoded value, in UTF-8 bytes. */
  public static final int MAX_BYTES = 1024;

  /** The wire version written. */
  public static final int VERSION = 1;

  static final int MAX_REASON_CHARS = 160;
  static final int MAX_NAME_CHARS = 253;
  static final int MAX_POLICY_CHARS = 64;
  static final int MAX_REASONS = 16;
  static final int MAX_CLOSEST = 5;
  static final int MAX_TOP = 5;
  static final int MAX_VICTIMS = 8;

  /** Result words on the wire. */
  public static final String SCHEDULED = "Scheduled";

  private ScheduleRecordCodec() {}

  /** Encodes {@code record}, shortened as needed to fit {@value #MAX_BYTES} bytes. */
  public static String encode(ScheduleRecord record) {
    if (record instanceof Failed f) {
      return encodeFailed(f);
    }
    return encodeScheduled((Scheduled) record);
  }

  /** The parts of a failed record as encoded, shortened until they fit. */
  private static final class FailedParts {
    final List<ReasonCount> reasons = new ArrayList<>();
    int omitted;
    final List<NodeReasons> closest = new ArrayList<>();
    @Nullable String node;
    final List<String> victims = new ArrayList<>();
    int omittedVictims;
  }

  private static String encodeFailed(Failed f) {
    FailedParts p = new FailedParts();
    p.omitted = Math.max(0, f.omittedReasons());
    for (ReasonCount r : f.reasons()) {
      if (p.reasons.size() < MAX_REASONS) {
        p.reasons.add(new ReasonCount(cut(r.reason(), MAX_REASON_CHARS), r.nodes()));
      } else {
        p.omitted++;
      }
    }
    for (NodeReasons n : f.closest()) {
      if (p.closest.size() == MAX_CLOSEST) {
        break;
      }
      List<String> rs = new ArrayList<>(n.reasons().size());
      for (String r : n.reasons()) {
        rs.add(cut(r, MAX_REASON_CHARS));
      }
      p.closest.add(new NodeReasons(cut(n.node(), MAX_NAME_CHARS), rs));
    }
    p.node = f.node() == null ? null : cut(f.node(), MAX_NAME_CHARS);
    Preemption pre = f.preemption();
    if (pre != null) {
      p.omittedVictims = Math.max(0, pre.omittedVictims());
      for (String v : pre.victims()) {
        if (p.victims.size() < MAX_VICTIMS) {
          p.victims.add(cut(v, MAX_NAME_CHARS));
        } else {
          p.omittedVictims++;
        }
      }
    }
    while (true) {
      String s = writeFailed(f, cut(f.reason(), MAX_POLICY_CHARS), p);
      if (fits(s)) {
        return s;
      }
      if (!p.closest.isEmpty()) {
        p.closest.remove(p.closest.size() - 1);
      } else if (!p.victims.isEmpty()) {
        p.victims.remove(p.victims.size() - 1);
        p.omittedVictims++;
      } else if (!p.reasons.isEmpty()) {
        p.reasons.remove(p.reasons.size() - 1);
        p.omitted++;
      } else {
        return s;
      }
    }
  }

  private static String writeFailed(Failed f, String reason, FailedParts p) {
    StringBuilder b = head(reason, f.time());
    if (p.node != null) {
      field(b, "node");
      GoJson.appendString(b, p.node);
    }
    field(b, "nodes").append(f.nodes());
    field(b, "reasons").append('{');
    for (int i = 0; i < p.reasons.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      GoJson.appendString(b, p.reasons.get(i).reason())
          .append(':')
          .append(p.reasons.get(i).nodes());
    }
    b.append('}');
    if (p.omitted > 0) {
      field(b, "moreReasons").append(p.omitted);
    }
    Preemption pre = f.preemption();
    if (pre != null) {
      field(b, "nominated");
      GoJson.appendString(b, cut(pre.nominatedNode(), MAX_NAME_CHARS));
      field(b, "victims").append('[');
      for (int i = 0; i < p.victims.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        GoJson.appendString(b, p.victims.get(i));
      }
      b.append(']');
      if (p.omittedVictims > 0) {
        field(b, "moreVictims").append(p.omittedVictims);
      }
    }
    List<NodeReasons> closest = p.closest;
    if (!closest.isEmpty()) {
      field(b, "closest").append('{');
      for (int i = 0; i < closest.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        GoJson.appendString(b, closest.get(i).node()).append(":[");
        List<String> rs = closest.get(i).reasons();
        for (int j = 0; j < rs.size(); j++) {
          if (j > 0) {
            b.append(',');
          }
          GoJson.appendString(b, rs.get(j));
        }
        b.append(']');
      }
      b.append('}');
    }
    return b.append('}').toString();
  }

  private static String encodeScheduled(Scheduled s) {
    List<NodeScore> top = new ArrayList<>();
    for (NodeScore n : s.top()) {
      if (top.size() == MAX_TOP) {
        break;
      }
      top.add(new NodeScore(cut(n.node(), MAX_NAME_CHARS), n.score()));
    }
    while (true) {
      StringBuilder b = head(SCHEDULED, s.time());
      field(b, "node");
      GoJson.appendString(b, cut(s.node(), MAX_NAME_CHARS));
      if (s.score() != null) {
        field(b, "score").append(s.score().longValue());
      }
      field(b, "nodePolicy");
      GoJson.appendString(b, cut(s.nodePolicy(), MAX_POLICY_CHARS));
      field(b, "gpuPolicy");
      GoJson.appendString(b, cut(s.gpuPolicy(), MAX_POLICY_CHARS));
      field(b, "feasible").append(s.feasible());
      field(b, "evaluated").append(s.evaluated());
      if (!top.isEmpty()) {
        field(b, "top").append('{');
        for (int i = 0; i < top.size(); i++) {
          if (i > 0) {
            b.append(',');
          }
          GoJson.appendString(b, top.get(i).node()).append(':').append(top.get(i).score());
        }
        b.append('}');
      }
      String out = b.append('}').toString();
      if (fits(out) || top.isEmpty()) {
        return out;
      }
      top.remove(top.size() - 1);
    }
  }

  private static StringBuilder head(String result, Instant time) {
    StringBuilder b = new StringBuilder(256).append("{\"v\":").append(VERSION);
    field(b, "result");
    GoJson.appendString(b, result);
    field(b, "time");
    GoJson.appendString(b, time.truncatedTo(ChronoUnit.SECONDS).toString());
    return b;
  }

  private static StringBuilder field(StringBuilder b, String name) {
    return b.append(",\"").append(name).append("\":");
  }

  private static boolean fits(String s) {
    // Cheap check first: UTF-8 never takes fewer bytes than chars.
    return s.length() <= MAX_BYTES / 3 || s.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES;
  }

  /** {@code s} cut to {@code max} chars (ending in "..."), never splitting a surrogate pair. */
  static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int end = max - 3;
    if (Character.isLowSurrogate(s.charAt(end)) && Character.isHighSurrogate(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(0, end) + "...";
  }

  // ---- decoding

  /** Decodes a value; an error names the field and quotes what was found. */
  public static Decoded<ScheduleRecord> decode(String value) {
    Decoded<Object> parsed = GoJson.parse(value);
    if (parsed instanceof Decoded.Err<Object> e) {
      return Decoded.err(e.error());
    }
    Object root = parsed.orElse(GoJson.NULL);
    if (!(root instanceof GoJson.Obj o)) {
      return Decoded.err("", value, "want a JSON object, got " + shortJson(root));
    }
    try {
      long v = number(o, "v", true);
      if (v < 1) {
        throw new Bad("v", o.get("v"), "unsupported version " + v);
      }
      String result = string(o, "result");
      Instant time = time(o);
      if (SCHEDULED.equals(result)) {
        return Decoded.ok(scheduled(o, time));
      }
      return Decoded.ok(failed(o, result, time));
    } catch (Bad b) {
      return Decoded.err(b.field, b.found == null ? "" : shortJson(b.found), b.reason);
    }
  }

  private static Scheduled scheduled(GoJson.Obj o, Instant time) throws Bad {
    Object score = o.get("score");
    List<NodeScore> top = new ArrayList<>();
    GoJson.Obj t = object(o, "top");
    if (t != null) {
      for (int i = 0; i < t.size(); i++) {
        top.add(new NodeScore(t.key(i), toLong(t.value(i), "top." + t.key(i))));
      }
    }
    return new Scheduled(
        time,
        string(o, "node"),
        score == null || score == GoJson.NULL ? null : toLong(score, "score"),
        optionalString(o, "nodePolicy"),
        optionalString(o, "gpuPolicy"),
        (int) number(o, "feasible", false),
        (int) number(o, "evaluated", false),
        top);
  }

  private static Failed failed(GoJson.Obj o, String result, Instant time) throws Bad {
    List<ReasonCount> reasons = new ArrayList<>();
    GoJson.Obj r = object(o, "reasons");
    if (r != null) {
      for (int i = 0; i < r.size(); i++) {
        reasons.add(new ReasonCount(r.key(i), (int) toLong(r.value(i), "reasons." + r.key(i))));
      }
    }
    List<NodeReasons> closest = new ArrayList<>();
    GoJson.Obj c = object(o, "closest");
    if (c != null) {
      for (int i = 0; i < c.size(); i++) {
        String field = "closest." + c.key(i);
        if (!(c.value(i) instanceof List<?> l)) {
          throw new Bad(field, c.value(i), "want a list of reasons");
        }
        List<String> rs = new ArrayList<>(l.size());
        for (Object x : l) {
          if (!(x instanceof String s)) {
            throw new Bad(field, x, "want a string reason");
          }
          rs.add(s);
        }
        closest.add(new NodeReasons(c.key(i), rs));
      }
    }
    Object node = o.get("node");
    Preemption preemption = null;
    Object nominated = o.get("nominated");
    if (nominated != null && nominated != GoJson.NULL) {
      List<String> victims = new ArrayList<>();
      Object v = o.get("victims");
      if (v != null && v != GoJson.NULL) {
        if (!(v instanceof List<?> l)) {
          throw new Bad("victims", v, "want a list of pod names");
        }
        for (Object x : l) {
          if (!(x instanceof String s)) {
            throw new Bad("victims", x, "want a pod name");
          }
          victims.add(s);
        }
      }
      preemption =
          new Preemption(string(o, "nominated"), victims, (int) number(o, "moreVictims", false));
    }
    return new Failed(
        time,
        result,
        node == null || node == GoJson.NULL ? null : string(o, "node"),
        (int) number(o, "nodes", false),
        reasons,
        (int) number(o, "moreReasons", false),
        closest,
        preemption);
  }

  /** A field that is missing or of the wrong kind. */
  private static final class Bad extends Exception {
    private static final long serialVersionUID = 1L;
    final String field;
    final transient @Nullable Object found;
    final String reason;

    Bad(String field, @Nullable Object found, String message) {
      super(message, null, false, false);
      this.field = field;
      this.found = found;
      this.reason = message;
    }
  }

  private static String string(GoJson.Obj o, String name) throws Bad {
    Object v = o.get(name);
    if (v == null) {
      throw new Bad(name, null, "missing field " + name);
    }
    if (!(v instanceof String s)) {
      throw new Bad(name, v, name + " must be a string, got " + shortJson(v));
    }
    return s;
  }

  private static String optionalString(GoJson.Obj o, String name) throws Bad {
    Object v = o.get(name);
    return v == null || v == GoJson.NULL ? "" : string(o, name);
  }

  private static GoJson.@Nullable Obj object(GoJson.Obj o, String name) throws Bad {
    Object v = o.get(name);
    if (v == null || v == GoJson.NULL) {
      return null;
    }
    if (!(v instanceof GoJson.Obj obj)) {
      throw new Bad(name, v, name + " must be an object, got " + shortJson(v));
    }
    return obj;
  }

  private static long number(GoJson.Obj o, String name, boolean required) throws Bad {
    Object v = o.get(name);
    if (v == null || v == GoJson.NULL) {
      if (required) {
        throw new Bad(name, null, "missing field " + name);
      }
      return 0;
    }
    long n = toLong(v, name);
    if (n < 0 || n > Integer.MAX_VALUE) {
      throw new Bad(name, v, name + " out of range: " + n);
    }
    return n;
  }

  private static long toLong(Object v, String field) throws Bad {
    if (v instanceof GoJson.Num n && n.integral()) {
      try {
        return Long.parseLong(n.text());
      } catch (NumberFormatException e) {
        throw new Bad(field, v, field + " out of range: " + n.text());
      }
    }
    throw new Bad(field, v, field + " must be an integer, got " + shortJson(v));
  }

  private static Instant time(GoJson.Obj o) throws Bad {
    String s = string(o, "time");
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new Bad("time", s, "time must be an RFC 3339 UTC time, got \"" + s + "\"");
    }
  }

  private static String shortJson(Object v) {
    String s = GoJson.toJson(v);
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
