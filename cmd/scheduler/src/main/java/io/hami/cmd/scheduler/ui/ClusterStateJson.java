package io.hami.cmd.scheduler.ui;

import io.hami.cmd.scheduler.ui.ClusterState.GpuView;
import io.hami.cmd.scheduler.ui.ClusterState.MigInstance;
import io.hami.cmd.scheduler.ui.ClusterState.NodeDetail;
import io.hami.cmd.scheduler.ui.ClusterState.NodeView;
import io.hami.cmd.scheduler.ui.ClusterState.PendingPod;
import io.hami.cmd.scheduler.ui.ClusterState.PodShare;
import io.hami.cmd.scheduler.ui.ClusterState.ProfilePolicy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The JSON the page polls ({@code /ui/api/cluster}). Times are epoch milliseconds; the page
 * computes ages against the server time sent in a header, so that the body changes only when the
 * cluster does (and a poll can be answered {@code 304}). Keys are short because the body of 1,000
 * nodes × 8 GPUs is sent every second.
 *
 * <pre>
 * {"nodes":[{"name":"gpu-1","cordoned":false,"other":0,"problem":null,
 *   "lock":null,"lockSince":null,"hs":"Reported","hsValue":"Reported 2026-...","registered":1764...,
 *   "gpus":[{"id":"GPU-0","i":0,"type":"NVIDIA A100","numa":0,"mode":"hami-core","ok":true,
 *     "mem":[20480,81920],"cores":[30,100],"slots":[2,10],"pods":[["ns/a",10240,30,1]],"mig":[]}]}],
 *  "pending":[{"pod":"ns/b","scheduler":"hami-scheduler","created":1764...,"reason":"Unschedulable",
 *   "message":"0/2 nodes are available: ...","attempted":1764...,"reasons":["2 CardInsufficientMemory"],
 *   "closest":["gpu-1: 1/8 CardInsufficientMemory"]}],
 *  "policies":[{"scheduler":"hami-scheduler","plugins":{"vgpu":{"nodeSchedulerPolicy":"binpack"}}}]}
 * </pre>
 */
final class ClusterStateJson {

  private ClusterStateJson() {}

  static String encode(ClusterState s) {
    return encode(s, ClusterStateJson::node);
  }

  /** Encodes {@code s}, taking each node's JSON object from {@code nodeJson} (which may cache). */
  static String encode(ClusterState s, Function<NodeView, String> nodeJson) {
    StringBuilder b = new StringBuilder(256 + s.nodes().size() * 2048);
    b.append("{\"nodes\":[");
    for (int i = 0; i < s.nodes().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(nodeJson.apply(s.nodes().get(i)));
    }
    b.append("],\"pending\":[");
    for (int i = 0; i < s.pending().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      pending(b, s.pending().get(i));
    }
    b.append("],\"policies\":[");
    for (int i = 0; i < s.policies().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      policy(b, s.policies().get(i));
    }
    return b.append("]}").toString();
  }

  /** One node's JSON object. */
  static String node(NodeView n) {
    StringBuilder b = new StringBuilder(256 + n.gpus().size() * 256);
    node(b, n);
    return b.toString();
  }

  private static void node(StringBuilder b, NodeView n) {
    NodeDetail d = n.detail();
    b.append("{\"name\":");
    str(b, n.name());
    b.append(",\"cordoned\":").append(n.unschedulable());
    b.append(",\"other\":").append(n.otherPods());
    b.append(",\"problem\":");
    str(b, n.registerProblem());
    b.append(",\"lock\":");
    str(b, d.lockHolder());
    b.append(",\"lockSince\":");
    time(b, d.lockSince());
    b.append(",\"hs\":");
    str(b, d.handshake());
    b.append(",\"hsValue\":");
    str(b, d.handshakeValue());
    b.append(",\"registered\":");
    time(b, d.registerSeen());
    b.append(",\"gpus\":[");
    for (int i = 0; i < n.gpus().size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      gpu(b, n.gpus().get(i));
    }
    b.append("]}");
  }

  private static void gpu(StringBuilder b, GpuView g) {
    b.append("{\"id\":");
    str(b, g.id());
    b.append(",\"i\":").append(g.index());
    b.append(",\"type\":");
    str(b, g.type());
    b.append(",\"numa\":").append(g.numa());
    b.append(",\"mode\":");
    str(b, g.mode());
    b.append(",\"ok\":").append(g.healthy());
    b.append(",\"mem\":[").append(g.memUsed()).append(',').append(g.memTotal());
    b.append("],\"cores\":[").append(g.coresUsed()).append(',').append(g.coresTotal());
    b.append("],\"slots\":[").append(g.slotsUsed()).append(',').append(g.slotsTotal());
    b.append("],\"pods\":[");
    List<PodShare> pods = g.pods();
    for (int i = 0; i < pods.size(); i++) {
      PodShare p = pods.get(i);
      b.append(i > 0 ? ",[" : "[");
      str(b, p.pod());
      b.append(',').append(p.mem()).append(',').append(p.cores()).append(',');
      b.append(p.containers()).append(']');
    }
    b.append("],\"mig\":[");
    List<MigInstance> mig = g.migInstances();
    for (int i = 0; i < mig.size(); i++) {
      MigInstance m = mig.get(i);
      b.append(i > 0 ? ",[" : "[");
      str(b, m.pod());
      b.append(',');
      str(b, m.profile());
      b.append(',');
      str(b, m.instance());
      b.append(']');
    }
    b.append("]}");
  }

  private static void pending(StringBuilder b, PendingPod p) {
    b.append("{\"pod\":");
    str(b, p.pod());
    b.append(",\"scheduler\":");
    str(b, p.scheduler());
    b.append(",\"created\":");
    time(b, p.created());
    b.append(",\"reason\":");
    str(b, p.reason());
    b.append(",\"message\":");
    str(b, p.message());
    b.append(",\"attempted\":");
    time(b, p.attempted());
    b.append(",\"reasons\":");
    strings(b, p.reasons());
    b.append(",\"closest\":");
    strings(b, p.closest());
    b.append('}');
  }

  private static void policy(StringBuilder b, ProfilePolicy p) {
    b.append("{\"scheduler\":");
    str(b, p.schedulerName());
    b.append(",\"plugins\":{");
    boolean first = true;
    for (Map.Entry<String, Map<String, String>> e : p.plugins().entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      str(b, e.getKey());
      b.append(":{");
      boolean firstField = true;
      for (Map.Entry<String, String> f : e.getValue().entrySet()) {
        if (!firstField) {
          b.append(',');
        }
        firstField = false;
        str(b, f.getKey());
        b.append(':');
        str(b, f.getValue());
      }
      b.append('}');
    }
    b.append("}}");
  }

  private static void strings(StringBuilder b, List<String> values) {
    b.append('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      str(b, values.get(i));
    }
    b.append(']');
  }

  private static void time(StringBuilder b, @Nullable Instant t) {
    if (t == null) {
      b.append("null");
    } else {
      b.append(t.toEpochMilli());
    }
  }

  /** A JSON string; {@code <}, {@code >} and {@code &} escaped too, so it is safe inside HTML. */
  static void str(StringBuilder b, @Nullable String s) {
    if (s == null) {
      b.append("null");
      return;
    }
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
