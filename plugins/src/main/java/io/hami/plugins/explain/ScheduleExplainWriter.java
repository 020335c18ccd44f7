package io.hami.plugins.explain;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.AttemptObserver;
import io.hami.framework.api.FailedAttempt;
import io.hami.framework.api.FailedAttempt.Diagnosis;
import io.hami.model.Annotations;
import io.hami.model.explain.ScheduleRecord;
import io.hami.model.explain.ScheduleRecord.NodeReasons;
import io.hami.model.explain.ScheduleRecord.ReasonCount;
import io.hami.model.explain.ScheduleRecordCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes a failed attempt's {@link ScheduleRecord.Failed} into {@code hami.io/schedule-explain},
 * next to the pod's condition. The record of a placement is written at PreBind by the vGPU plugin,
 * which registers this observer too. A closest node's reason codes are refined by the {@link
 * NodeDetail} given: {@code CardInsufficientMemory} becomes {@code 1/4 CardInsufficientMemory}, the
 * devices of the node as HAMi counts them.
 */
public final class ScheduleExplainWriter implements AttemptObserver {
  /** A writer without finer reasons. */
  public static final ScheduleExplainWriter INSTANCE = new ScheduleExplainWriter(NodeDetail.NONE);

  private final NodeDetail detail;

  /** A writer refining the closest nodes' reasons with {@code detail}. */
  public ScheduleExplainWriter(NodeDetail detail) {
    this.detail = requireNonNull(detail, "detail");
  }

  @Override
  public Map<String, String> failed(FailedAttempt attempt) {
    ScheduleRecord.Failed r = record(attempt.diagnosis(), attempt.preemption());
    if (detail != NodeDetail.NONE && !r.closest().isEmpty()) {
      r = refined(r, attempt.pod());
    }
    return Map.of(Annotations.SCHEDULE_EXPLAIN, ScheduleRecordCodec.encode(r));
  }

  /** The record with each closest node's codes replaced by the finer reasons that end in them. */
  private ScheduleRecord.Failed refined(ScheduleRecord.Failed r, Pod pod) {
    List<NodeReasons> closest = new ArrayList<>(r.closest().size());
    for (NodeReasons n : r.closest()) {
      List<String> finer = detail.reasons(pod, n.node());
      if (finer.isEmpty()) {
        closest.add(n);
        continue;
      }
      List<String> reasons = new ArrayList<>(n.reasons().size());
      for (String code : n.reasons()) {
        reasons.add(refine(code, finer));
      }
      closest.add(new NodeReasons(n.node(), reasons));
    }
    return new ScheduleRecord.Failed(
        r.time(),
        r.reason(),
        r.node(),
        r.nodes(),
        r.reasons(),
        r.omittedReasons(),
        closest,
        r.preemption());
  }

  private static String refine(String code, List<String> finer) {
    for (String f : finer) {
      // A finer reason may end with a note in parentheses: "2/2 CardInsufficientMemory (...)".
      int note = f.indexOf(" (");
      String head = note < 0 ? f : f.substring(0, note);
      if (head.equals(code) || head.endsWith(" " + code)) {
        return f;
      }
    }
    return code;
  }

  /** The record of a diagnosis; the codec leaves out reasons beyond what fits. */
  static ScheduleRecord.Failed record(Diagnosis d) {
    return record(d, null);
  }

  /** The record of a diagnosis and what preemption did, if it made room. */
  static ScheduleRecord.Failed record(Diagnosis d, FailedAttempt.@Nullable Preemption p) {
    List<ReasonCount> reasons = new ArrayList<>(d.reasons().size());
    for (FailedAttempt.ReasonCount r : d.reasons()) {
      reasons.add(new ReasonCount(r.reason(), r.nodes()));
    }
    List<NodeReasons> closest = new ArrayList<>(d.closest().size());
    for (FailedAttempt.NodeReasons n : d.closest()) {
      closest.add(new NodeReasons(n.node(), n.reasons()));
    }
    ScheduleRecord.Preemption preemption =
        p == null ? null : new ScheduleRecord.Preemption(p.nominatedNode(), p.victims(), 0);
    return new ScheduleRecord.Failed(
        d.time(), d.reason(), d.node(), d.nodes(), reasons, 0, closest, preemption);
  }
}
