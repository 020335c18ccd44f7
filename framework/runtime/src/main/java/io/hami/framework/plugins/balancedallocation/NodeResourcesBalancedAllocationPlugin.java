package io.hami.framework.plugins.balancedallocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.Resources;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.Arrays;
import java.util.List;

/**
 * Favours nodes whose resource usage stays balanced with the pod placed, as kube-scheduler's
 * NodeResourcesBalancedAllocation: for each configured resource the fraction (node's requests plus
 * the pod's, over allocatable, capped at 1) is computed, and the score is {@code (1 - standard
 * deviation of the fractions) * 100}. As in kube-scheduler the requests are the real ones (no
 * defaults for best-effort containers), an extended resource the pod does not request or the node
 * does not offer is left out, and best-effort pods are not scored at all (they would all pile onto
 * the emptiest balanced node).
 */
public final class NodeResourcesBalancedAllocationPlugin implements PreScorePlugin, ScorePlugin {
  public static final String NAME = "NodeResourcesBalancedAllocation";
  private static final StateKey<PodRequests> PRE_SCORE =
      StateKey.of("PreScore" + NAME, PodRequests.class);

  /**
   * The pod's request of each configured resource, in the order of {@link #resources}, and the
   * positions of the resources its score weighs.
   */
  private static final class PodRequests implements StateData {
    final long[] amounts;
    final int[] weighed;

    PodRequests(long[] amounts, int[] weighed) {
      this.amounts = amounts;
      this.weighed = weighed;
    }
  }

  private final FrameworkHandle handle;
  private final String[] resources;

  NodeResourcesBalancedAllocationPlugin(
      NodeResourcesBalancedAllocationArgs args, FrameworkHandle handle) {
    this.handle = handle;
    this.resources =
        args.resources().stream()
            .map(NodeResourcesBalancedAllocationArgs.ResourceSpec::name)
            .toArray(String[]::new);
  }

  public static Plugin create(NodeResourcesBalancedAllocationArgs args, FrameworkHandle handle) {
    return new NodeResourcesBalancedAllocationPlugin(args, handle);
  }

  public static PluginRegistration<NodeResourcesBalancedAllocationArgs> registration() {
    return PluginRegistration.of(
        NAME,
        NodeResourcesBalancedAllocationArgs.class,
        NodeResourcesBalancedAllocationArgs.defaults(),
        NodeResourcesBalancedAllocationPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    long[] amounts = podRequests(pod);
    if (isBestEffort(amounts)) {
      return Status.skip();
    }
    state.write(PRE_SCORE, new PodRequests(amounts, weighed(amounts)));
    return Status.success();
  }

  private long[] podRequests(Pod pod) {
    Resources req = handle.podRequests(pod);
    long[] amounts = new long[resources.length];
    for (int i = 0; i < resources.length; i++) {
      amounts[i] = req.get(resources[i]);
    }
    return amounts;
  }

  /**
   * The positions of the resources kube-scheduler counts for a pod: cpu, memory, ephemeral-storage
   * and scalar resources, the latter only when the pod asks for them; the pod count is no resource
   * to balance.
   */
  private int[] weighed(long[] podReq) {
    int[] out = new int[resources.length];
    int n = 0;
    for (int i = 0; i < resources.length; i++) {
      String r = resources[i];
      if (!Resources.PODS.equals(r) && !(podReq[i] == 0 && isScalar(r))) {
        out[n++] = i;
      }
    }
    return Arrays.copyOf(out, n);
  }

  // Called per node: the usual two fractions stay in locals, an array is made only for more.
  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PodRequests s = state.get(PRE_SCORE);
    if (s == null) {
      long[] amounts = podRequests(pod);
      if (isBestEffort(amounts)) {
        return 0;
      }
      s = new PodRequests(amounts, weighed(amounts));
    }
    Resources alloc = node.allocatable();
    Resources used = node.requested();
    double f0 = 0;
    double f1 = 0;
    int n = 0;
    double total = 0;
    for (int i : s.weighed) {
      double f = fraction(alloc, used, resources[i], s.amounts[i]);
      if (Double.isNaN(f)) {
        continue;
      }
      if (n == 0) {
        f0 = f;
      } else if (n == 1) {
        f1 = f;
      }
      n++;
      total += f;
    }
    if (n <= 2) {
      return balancedScore(f0, f1, n);
    }
    double[] fractions = new double[n];
    int k = 0;
    for (int i : s.weighed) {
      double f = fraction(alloc, used, resources[i], s.amounts[i]);
      if (!Double.isNaN(f)) {
        fractions[k++] = f;
      }
    }
    return balancedScore(fractions, n, total);
  }

  /** The node's share of resource r with the pod placed, capped at 1; NaN when it offers none. */
  private static double fraction(Resources alloc, Resources used, String r, long podReq) {
    long capacity = alloc.get(r);
    if (capacity <= 0) {
      return Double.NaN;
    }
    return Math.min(1.0, (double) (used.get(r) + podReq) / capacity);
  }

  private static boolean isBestEffort(long[] amounts) {
    for (long a : amounts) {
      if (a != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code (1 - std deviation) * 100} of the first {@code n} fractions, which sum to total. Public
   * so that replays outside the scheduler rank nodes alike.
   */
  public static long balancedScore(double[] fractions, int n, double total) {
    if (n <= 2) {
      return balancedScore(n > 0 ? fractions[0] : 0, n > 1 ? fractions[1] : 0, n);
    }
    double mean = total / n;
    double sum = 0;
    for (int i = 0; i < n; i++) {
      double d = fractions[i] - mean;
      sum += d * d;
    }
    return score(Math.sqrt(sum / n));
  }

  /** The same for at most two fractions, {@code f0} and {@code f1} of which the first n count. */
  private static long balancedScore(double f0, double f1, int n) {
    return score(n == 2 ? Math.abs((f0 - f1) / 2) : 0);
  }

  private static long score(double std) {
    return (long) ((1 - std) * MAX_NODE_SCORE);
  }

  /** Resources other than cpu, memory, ephemeral-storage and pods (kube's scalar resources). */
  private static boolean isScalar(String name) {
    return !Resources.CPU.equals(name)
        && !Resources.MEMORY.equals(name)
        && !Resources.EPHEMERAL_STORAGE.equals(name)
        && !Resources.PODS.equals(name);
  }
}
