package io.hami.plugins.explain;

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
 * which registers this observer too.
 */
public final class ScheduleExplainWriter implements AttemptObserver {
  public static final ScheduleExplainWriter INSTANCE = new ScheduleExplainWriter();

  private ScheduleExplainWriter() {}

  @Override
  public Map<String, String> failed(FailedAttempt attempt) {
    return Map.of(
        Annotations.SCHEDULE_EXPLAIN,
        ScheduleRecordCodec.encode(record(attempt.diagnosis(), attempt.preemption())));
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
