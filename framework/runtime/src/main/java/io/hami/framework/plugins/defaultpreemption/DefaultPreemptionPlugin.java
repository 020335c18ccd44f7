package io.hami.framework.plugins.defaultpreemption;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.ObjectKind;
import io.hami.framework.api.ObjectLister;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PodInfo;
import io.hami.framework.api.PostFilterPlugin;
import io.hami.framework.api.PostFilterResult;
import io.hami.framework.api.Status;
import io.hami.framework.bind.PodEvictor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * kube-scheduler's DefaultPreemption PostFilter. When no node passed Filter, it looks among the
 * nodes that rejected the pod as {@link Code#UNSCHEDULABLE} (never {@link
 * Code#UNSCHEDULABLE_AND_UNRESOLVABLE}) for ones where evicting lower-priority pods lets the pod
 * fit, starting at a random offset and stopping once enough candidates are found ({@link
 * DefaultPreemptionArgs}); picks one node by kube's criteria ({@link CandidatePicker}); evicts its
 * victims; clears the nominations of lower-priority pods on that node; and nominates the pod there.
 *
 * <p>Evictions are synchronous: the API calls are made on the scheduling thread before the pod is
 * requeued (kube-scheduler v1.36 makes them in the background).
 */
public final class DefaultPreemptionPlugin implements PostFilterPlugin {
  public static final String NAME = "DefaultPreemption";

  private final FrameworkHandle handle;
  private final DefaultPreemptionArgs args;
  private final ObjectLister<PodDisruptionBudget> pdbs;
  private final Random random;
  private final VictimSelector victims;

  DefaultPreemptionPlugin(FrameworkHandle handle, DefaultPreemptionArgs args, Random random) {
    this.handle = handle;
    this.args = args;
    this.pdbs = handle.lister(ObjectKind.POD_DISRUPTION_BUDGET);
    this.random = random;
    this.victims = new VictimSelector(handle);
  }

  public static Plugin create(DefaultPreemptionArgs args, FrameworkHandle handle) {
    return new DefaultPreemptionPlugin(handle, args, new Random());
  }

  /** Like {@link #create}, with the generator of the dry run's start offset given (tests). */
  public static Plugin create(DefaultPreemptionArgs args, FrameworkHandle handle, Random random) {
    return new DefaultPreemptionPlugin(handle, args, random);
  }

  public static PluginRegistration<DefaultPreemptionArgs> registration() {
    return PluginRegistration.of(
        NAME,
        DefaultPreemptionArgs.class,
        DefaultPreemptionArgs.defaults(),
        DefaultPreemptionPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PostFilterResult postFilter(
      CycleState state, Pod pod, Map<String, Status> filteredNodeStatuses) {
    PostFilterResult r = preempt(state, pod, filteredNodeStatuses);
    String msg = r.status().message();
    if (msg.isEmpty() || r.status().isSuccess()) {
      return r;
    }
    Status s =
        new Status(r.status().code(), List.of("preemption: " + msg), r.status().cause(), null);
    return new PostFilterResult(s, r.nominatedNodeName(), r.victims());
  }

  private PostFilterResult preempt(CycleState state, Pod pod, Map<String, Status> statuses) {
    String notEligible = notEligible(pod, statuses);
    if (notEligible != null) {
      return PostFilterResult.of(Status.unschedulable(notEligible));
    }
    List<NodeInfo> all = handle.snapshot().nodes();
    if (all.isEmpty()) {
      return PostFilterResult.of(Status.error("no nodes available"));
    }
    List<NodeInfo> potential = new ArrayList<>();
    for (NodeInfo n : all) {
      Status s = statuses.get(n.name());
      if (s != null && s.code() == Code.UNSCHEDULABLE) {
        potential.add(n);
      }
    }
    Map<String, Status> nodeStatuses = new LinkedHashMap<>();
    List<Candidate> candidates = List.of();
    if (!potential.isEmpty()) {
      DryRun run = dryRun(state, pod, potential, pdbs.list(), nodeStatuses);
      if (run.candidates.isEmpty() && run.error != null) {
        return PostFilterResult.of(run.error);
      }
      candidates = run.candidates;
    }
    if (candidates.isEmpty()) {
      String msg = fitMessage(all.size(), nodeStatuses, "Preemption is not helpful for scheduling");
      return PostFilterResult.clearNomination(Status.unschedulable(msg));
    }
    Candidate best = CandidatePicker.pick(candidates);
    Status prepared = prepare(best, pod);
    if (!prepared.isSuccess()) {
      return PostFilterResult.of(prepared);
    }
    return PostFilterResult.nominated(best.node(), best.victims());
  }

  /**
   * Why the pod may not preempt now, or null when it may: its {@code preemptionPolicy} is Never, or
   * lower-priority pods on its nominated node are still terminating after an earlier preemption
   * (the room it made is on its way; the nomination is kept).
   */
  private @Nullable String notEligible(Pod pod, Map<String, Status> statuses) {
    if (pod.getSpec() != null && "Never".equals(pod.getSpec().getPreemptionPolicy())) {
      return "not eligible due to preemptionPolicy=Never.";
    }
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (nominated == null || nominated.isEmpty()) {
      return null;
    }
    Status s = statuses.get(nominated);
    if (s == null || s.code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
      return null;
    }
    NodeInfo node = handle.snapshot().get(nominated);
    if (node != null) {
      int priority = PodInfo.priorityOf(pod);
      for (PodInfo p : node.pods()) {
        if (p.priority() < priority && terminatingByPreemption(p.pod())) {
          return "not eligible due to a terminating pod on the nominated node.";
        }
      }
    }
    return null;
  }

  private static boolean terminatingByPreemption(Pod p) {
    if (p.getMetadata().getDeletionTimestamp() == null
        || p.getStatus() == null
        || p.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : p.getStatus().getConditions()) {
      if ("DisruptionTarget".equals(c.getType())) {
        return "True".equals(c.getStatus()) && PodEvictor.REASON.equals(c.getReason());
      }
    }
    return false;
  }

  /** What the dry run found: candidates without PDB violations first, and the first error. */
  private record DryRun(List<Candidate> candidates, @Nullable Status error) {}

  /**
   * Tries the potential nodes from a random offset until enough candidates are found, one without
   * PDB violations among them; records why each other node is no candidate in {@code nodeStatuses}.
   */
  private DryRun dryRun(
      CycleState state,
      Pod pod,
      List<NodeInfo> potential,
      List<PodDisruptionBudget> budgets,
      Map<String, Status> nodeStatuses) {
    List<Candidate> nonViolating = new ArrayList<>();
    List<Candidate> violating = new ArrayList<>();
    Status error = null;
    int n = potential.size();
    int offset = random.nextInt(n);
    int wanted = args.numCandidates(n);
    for (int i = 0; i < n; i++) {
      if (!nonViolating.isEmpty() && nonViolating.size() + violating.size() >= wanted) {
        break;
      }
      NodeInfo node = potential.get((offset + i) % n);
      VictimSelector.Result r = victims.select(state.copy(), pod, node, budgets);
      Status s = r.status();
      if (s.isSuccess() && !r.victims().isEmpty()) {
        Candidate c = new Candidate(node.name(), r.victims(), r.pdbViolations());
        (r.pdbViolations() == 0 ? nonViolating : violating).add(c);
        continue;
      }
      if (s.isSuccess()) {
        s = Status.error("expected at least one victim pod on node " + node.name());
      }
      if (s.code() == Code.ERROR && error == null) {
        error = s;
      }
      nodeStatuses.put(node.name(), s);
    }
    List<Candidate> out = new ArrayList<>(nonViolating);
    out.addAll(violating);
    return new DryRun(out, error);
  }

  /**
   * kube's FitError message over the dry run's statuses: nodes it did not try count under {@code
   * absentReason}; reasons sorted as kube-scheduler sorts them (as text).
   */
  static String fitMessage(int numAll, Map<String, Status> statuses, String absentReason) {
    Map<String, Integer> histogram = new TreeMap<>();
    for (Status s : statuses.values()) {
      for (String reason : s.reasons()) {
        histogram.merge(reason, 1, Integer::sum);
      }
    }
    if (statuses.size() < numAll) {
      histogram.merge(absentReason, numAll - statuses.size(), Integer::sum);
    }
    List<String> parts = new ArrayList<>();
    histogram.forEach((reason, count) -> parts.add(count + " " + reason));
    Collections.sort(parts);
    StringBuilder sb = new StringBuilder("0/").append(numAll).append(" nodes are available:");
    if (!parts.isEmpty()) {
      sb.append(' ').append(String.join(", ", parts)).append('.');
    }
    return sb.toString();
  }

  /**
   * Evicts the candidate's victims (those not already terminating), then clears the nominations of
   * lower-priority pods to its node, which the room no longer holds.
   */
  private Status prepare(Candidate c, Pod pod) {
    for (Pod victim : c.victims()) {
      if (victim.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      Status s = handle.preempt(victim, pod, c.node());
      if (!s.isSuccess()) {
        return s;
      }
    }
    int priority = PodInfo.priorityOf(pod);
    for (PodInfo p : handle.nominatedPods(c.node())) {
      if (p.priority() < priority) {
        handle.clearNomination(p.pod());
      }
    }
    return Status.success();
  }
}
