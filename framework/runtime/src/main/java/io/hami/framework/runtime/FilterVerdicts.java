package io.hami.framework.runtime;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.Code;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FilterEquivalence;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.Status;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reuse of one profile's Filter verdicts ({@link FilterEquivalence}). A pod's class is the list of
 * the classes its Filter plugins give, interned once per cycle; each node keeps, on its {@link
 * NodeInfo} instance, the last verdict per class. A new NodeInfo (the node, its pods or state a
 * plugin keeps for it changed) starts with none.
 *
 * <p>Threads: {@link #classOf} runs on the scheduling thread; {@link #lookup} and {@link #remember}
 * run for different nodes concurrently. A node's table holds immutable entries, each checked
 * against the class before use, so a lost write costs a Filter call, never a wrong verdict.
 */
final class FilterVerdicts {

  private static final NodeLocal<Verdict[]> SLOT = NodeLocal.create("filter verdicts");

  /** Classes interned before the table is cleared (clients with endless distinct pods). */
  static final int MAX_CLASSES = 4096;

  /** Verdicts one node keeps at most; classes beyond share slots and evict each other. */
  static final int NODE_SLOTS = 256;

  /** An interned pod class: compared by identity. */
  static final class PodClass {
    final int id;

    private PodClass(int id) {
      this.id = id;
    }
  }

  private record Verdict(PodClass podClass, Status status) {}

  private final FilterEquivalence @Nullable [] plugins;
  private final Map<List<Object>, PodClass> interned = new HashMap<>();

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

  boolean enabled() {
    return plugins != null;
  }

  /** The pod's class for this cycle, or null when its verdicts must not be reused. */
  @Nullable PodClass classOf(CycleState state, Pod pod, boolean[] skip) {
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
        interned.clear();
      }
      pc = new PodClass(interned.size());
      interned.put(k, pc);
    }
    return pc;
  }

  private enum Skipped {
    INSTANCE
  }

  /** The kept verdict for the class on this node instance, or null. */
  @Nullable Status lookup(PodClass c, NodeInfo node) {
    Verdict[] slots = node.local(SLOT);
    if (slots == null) {
      return null;
    }
    Verdict v = slots[c.id & (slots.length - 1)];
    if (v == null || v.podClass != c) {
      return null;
    }
    return v.status;
  }

  /** Keeps the verdict computed for the class on this node. */
  void remember(PodClass c, NodeInfo node, Status status) {
    if (status.code() == Code.ERROR) {
      return;
    }
    Verdict[] slots = node.local(SLOT);
    int want = Math.min(NODE_SLOTS, Integer.highestOneBit(c.id) << 1);
    if (slots == null || slots.length < want) {
      Verdict[] grown = new Verdict[Math.max(16, want)];
      if (slots != null) {
        for (Verdict v : slots) {
          if (v != null) {
            grown[v.podClass.id & (grown.length - 1)] = v;
          }
        }
      }
      slots = grown;
      node.setLocal(SLOT, slots);
    }
    slots[c.id & (slots.length - 1)] = new Verdict(c, status);
  }
}
