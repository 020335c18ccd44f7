package io.hami.framework.plugins.defaultpreemption;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * kube-scheduler's pickOneNodeForPreemption: keeps the candidates with the best score under each
 * criterion in turn, until one is left: fewest PodDisruptionBudget violations; lowest
 * highest-priority victim; lowest sum of victim priorities; fewest victims; latest start among the
 * highest-priority victims. Remaining ties go to the first candidate in dry-run order.
 */
final class CandidatePicker {
  private CandidatePicker() {}

  private static final ImmutableList<ToLongFunction<Candidate>> CRITERIA =
      ImmutableList.of(
          c -> -c.pdbViolations(),
          c -> -(long) PodInfo.priorityOf(c.victims().get(0)),
          CandidatePicker::negatedPrioritySum,
          c -> -c.victims().size(),
          CandidatePicker::earliestStartOfMostImportant);

  static Candidate pick(List<Candidate> candidates) {
    List<Candidate> left = candidates;
    for (ToLongFunction<Candidate> f : CRITERIA) {
      if (left.size() == 1) {
        break;
      }
      long best = Long.MIN_VALUE;
      List<Candidate> kept = new ArrayList<>();
      for (Candidate c : left) {
        long score = f.applyAsLong(c);
        if (score > best) {
          best = score;
          kept.clear();
        }
        if (score == best) {
          kept.add(c);
        }
      }
      left = kept;
    }
    return left.get(0);
  }

  private static long negatedPrioritySum(Candidate c) {
    long sum = 0;
    for (Pod p : c.victims()) {
      // Shifted so that negative priorities still add up to more for more pods.
      sum += (long) PodInfo.priorityOf(p) + (long) Integer.MAX_VALUE + 1;
    }
    return -sum;
  }

  /** The earliest start time of the highest-priority victims, in nanoseconds; later is better. */
  private static long earliestStartOfMostImportant(Candidate c) {
    int max = Integer.MIN_VALUE;
    Instant earliest = Instant.MAX;
    for (Pod p : c.victims()) {
      int prio = PodInfo.priorityOf(p);
      Instant start = PodOrder.startTime(p);
      if (prio > max) {
        max = prio;
        earliest = start;
      } else if (prio == max && start.isBefore(earliest)) {
        earliest = start;
      }
    }
    if (earliest.equals(Instant.MAX)) {
      return Long.MAX_VALUE;
    }
    return earliest.getEpochSecond() * 1_000_000_000L + earliest.getNano();
  }
}
