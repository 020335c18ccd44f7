package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.Status;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reuse of one profile's Filter verdicts ({@link FilterEquivalence}). A pod's class is the list of
 * the classes its Filter plugins give, interned once per cycle. Each class keeps, by position in
 * the snapshot's node list, the last verdict and the {@link NodeInfo} instance it was computed on;
 * it stands while that position holds the same instance (the node, its pods and the state plugins
 * report for it unchanged). Both are flat arrays read in node order, so a kept verdict costs two
 * sequential reads.
 *
 * <p>Threads: {@link #classOf} (which may grow a class's arrays) runs on the scheduling thread
 * before Filter fans out; {@link #lookup} and {@link #remember} run for different positions
 * concurrently, and a position is touched by one thread per cycle.
 */
final class FilterVerdicts {

  /**
   * Kept verdicts, over all classes, before every class forgets them (huge clusters, many shapes).
   */
  static final int MAX_KEPT = 1 << 22;

  /** Classes interned before the table is cleared (clients with endless distinct pods). */
  static final int MAX_CLASSES = 4096;

  /** An interned pod class and its verdicts by node position. */
  static final class PodClass {
    private NodeInfo[] nodes = new NodeInfo[0];
    private Status[] verdicts = new Status[0];
  }

  private final FilterEquivalence @Nullable [] plugins;
  private final Map<List<Object>, PodClass> interned = new HashMap<>();
  private int kept;

  /** Verdict reuse for these Filter plugins; off unless every one implements the interface. */
  FilterVerdicts(FilterPlugin[] filters) {
    boolean all = filters.length > 0;
    for (FilterPlugin f : filters) {
      all &= f instanceof FilterEquivalence;
    }
    if (!all) {
      plugins = null;
      return;
    }
    plugins = new FilterEquivalence[filters.length];
    for (int i = 0; i < filters.length; i++) {
      plugins[i] = (FilterEquivalence) filters[i];
    }
  }

  /**
   * The pod's class for this cycle over {@code nodes} positions, or null when its verdicts must not
   * be reused.
   */
  @Nullable PodClass classOf(CycleState state, Pod pod, boolean[] skip, int nodes) {
    if (plugins == null) {
      return null;
    }
    Object[] key = new Object[plugins.length];
    for (int i = 0; i < plugins.length; i++) {
      if (skip[i]) {
        // A skipped plugin reads nothing; its slot only has to differ from any class.
        key[i] = Skipped.INSTANCE;
        continue;
      }
      Object c = plugins[i].equivalenceClass(state, pod);
      if (c == null) {
        return null;
      }
      key[i] = c;
    }
    List<Object> k = Arrays.asList(key);
    PodClass pc = interned.get(k);
    if (pc == null) {
      if (interned.size() >= MAX_CLASSES) {
        forget();
      }
      pc = new PodClass();
      interned.put(k, pc);
    }
    if (pc.nodes.length < nodes) {
      if (kept + nodes - pc.nodes.length > MAX_KEPT) {
        forget();
        pc = new PodClass();
        interned.put(k, pc);
      }
      kept += nodes - pc.nodes.length;
      pc.nodes = Arrays.copyOf(pc.nodes, nodes);
      pc.verdicts = Arrays.copyOf(pc.verdicts, nodes);
    }
    return pc;
  }

  private void forget() {
    interned.clear();
    kept = 0;
  }

  private enum Skipped {
    INSTANCE
  }

  /** The verdict kept for the class at this position, if it was computed on this node instance. */
  static @Nullable Status lookup(PodClass c, int position, NodeInfo node) {
    return c.nodes[position] == node ? c.verdicts[position] : null;
  }

  /** Keeps the verdict computed for the class on the node at this position. */
  static void remember(PodClass c, int position, NodeInfo node, Status status) {
    if (status.code() == Code.ERROR) {
      return;
    }
    c.verdicts[position] = status;
    c.nodes[position] = node;
  }
}
