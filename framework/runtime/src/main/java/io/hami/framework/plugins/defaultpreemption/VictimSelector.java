package io.hami.framework.plugins.defaultpreemption;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.Status;
import io.hami.framework.plugins.helper.LabelSelectors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Finds the fewest, least important pods on one node whose eviction lets the pod fit (kube's
 * SelectVictimsOnNode): removes every lower-priority pod, checks that the pod fits then, and adds
 * them back one by one, most important first, those whose eviction would violate a
 * PodDisruptionBudget before the others, keeping as victims only those without which it no longer
 * fits. Works on copies: the NodeInfo values it derives and the CycleState copy it is given.
 */
final class VictimSelector {
  private static final Comparator<PodInfo> MORE_IMPORTANT_FIRST =
      Comparator.comparing(PodInfo::pod, PodOrder.MORE_IMPORTANT_FIRST);

  /** The victims on one node, or why there are none. */
  record Result(Status status, List<Pod> victims, int pdbViolations) {
    static Result failed(Status s) {
      return new Result(s, List.of(), 0);
    }
  }

  private final FrameworkHandle handle;

  VictimSelector(FrameworkHandle handle) {
    this.handle = handle;
  }

  /**
   * Selects the victims on {@code node}.
   *
   * @param state a copy of the cycle state, changed by the PreFilter extensions
   */
  Result select(CycleState state, Pod pod, NodeInfo node, List<PodDisruptionBudget> pdbs) {
    int priority = PodInfo.priorityOf(pod);
    List<PodInfo> potential = new ArrayList<>();
    for (PodInfo p : node.pods()) {
      if (p.priority() < priority) {
        potential.add(p);
      }
    }
    NodeInfo n = node;
    for (PodInfo p : potential) {
      n = n.withoutPod(p.uid());
      Status s = handle.runPreFilterRemovePod(state, pod, p, n);
      if (!s.isSuccess()) {
        return Result.failed(asError(s));
      }
    }
    if (potential.isEmpty()) {
      return Result.failed(Status.unresolvable("No preemption victims found for incoming pod"));
    }
    Status fits = handle.runFilterWithNominatedPods(state, pod, n);
    if (!fits.isSuccess()) {
      return Result.failed(fits);
    }
    potential.sort(MORE_IMPORTANT_FIRST);
    List<PodInfo> violating = new ArrayList<>();
    List<PodInfo> nonViolating = new ArrayList<>();
    splitByPdbViolation(potential, pdbs, violating, nonViolating);
    List<PodInfo> victims = new ArrayList<>();
    int numViolating = 0;
    for (List<PodInfo> group : List.of(violating, nonViolating)) {
      for (PodInfo p : group) {
        NodeInfo with = n.withPod(p);
        Status added = handle.runPreFilterAddPod(state, pod, p, with);
        if (!added.isSuccess()) {
          return Result.failed(asError(added));
        }
        if (handle.runFilterWithNominatedPods(state, pod, with).isSuccess()) {
          n = with; // reprieved
          continue;
        }
        Status removed = handle.runPreFilterRemovePod(state, pod, p, n);
        if (!removed.isSuccess()) {
          return Result.failed(asError(removed));
        }
        victims.add(p);
        if (group == violating) {
          numViolating++;
        }
      }
    }
    if (!violating.isEmpty() && !nonViolating.isEmpty()) {
      victims.sort(MORE_IMPORTANT_FIRST);
    }
    List<Pod> pods = new ArrayList<>(victims.size());
    for (PodInfo p : victims) {
      pods.add(p.pod());
    }
    return new Result(Status.success(), pods, numViolating);
  }

  private static Status asError(Status s) {
    return s.code() == io.hami.framework.api.Code.ERROR
        ? s
        : new Status(io.hami.framework.api.Code.ERROR, s.reasons(), s.cause(), s.plugin());
  }

  /**
   * Splits {@code pods} (in order) into those whose eviction some PodDisruptionBudget of their
   * namespace does not allow, counting down each budget's {@code disruptionsAllowed} as pods are
   * taken, and the others. A budget with an empty or unreadable selector covers no pod; a pod the
   * budget already lists as disrupted costs it nothing.
   */
  static void splitByPdbViolation(
      List<PodInfo> pods,
      List<PodDisruptionBudget> pdbs,
      List<PodInfo> violating,
      List<PodInfo> nonViolating) {
    int[] allowed = new int[pdbs.size()];
    for (int i = 0; i < pdbs.size(); i++) {
      PodDisruptionBudget pdb = pdbs.get(i);
      Integer a = pdb.getStatus() == null ? null : pdb.getStatus().getDisruptionsAllowed();
      allowed[i] = a == null ? 0 : a;
    }
    for (PodInfo p : pods) {
      Pod pod = p.pod();
      Map<String, String> labels = pod.getMetadata().getLabels();
      boolean violates = false;
      if (labels != null && !labels.isEmpty()) {
        for (int i = 0; i < pdbs.size(); i++) {
          PodDisruptionBudget pdb = pdbs.get(i);
          if (!covers(pdb, pod, labels)) {
            continue;
          }
          allowed[i]--;
          if (allowed[i] < 0) {
            violates = true;
          }
        }
      }
      (violates ? violating : nonViolating).add(p);
    }
  }

  private static boolean covers(PodDisruptionBudget pdb, Pod pod, Map<String, String> labels) {
    if (pdb.getMetadata() == null
        || !java.util.Objects.equals(
            pdb.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
      return false;
    }
    LabelSelector selector = pdb.getSpec() == null ? null : pdb.getSpec().getSelector();
    if (isEmpty(selector) || !LabelSelectors.matches(selector, labels)) {
      return false;
    }
    Map<String, String> disrupted =
        pdb.getStatus() == null ? null : pdb.getStatus().getDisruptedPods();
    return disrupted == null || !disrupted.containsKey(pod.getMetadata().getName());
  }

  private static boolean isEmpty(@Nullable LabelSelector s) {
    return s == null
        || ((s.getMatchLabels() == null || s.getMatchLabels().isEmpty())
            && (s.getMatchExpressions() == null || s.getMatchExpressions().isEmpty()));
  }
}
