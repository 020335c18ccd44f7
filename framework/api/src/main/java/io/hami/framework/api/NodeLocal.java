package io.hami.framework.api;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A slot for data derived from one {@link NodeInfo} instance and kept on it. A NodeInfo never
 * changes and the scheduler cache makes a new one whenever the node or its pods change, so what is
 * kept in a slot stays valid for as long as the instance is in use, and is dropped with it: there
 * is no map by node name to look up on every node and no entry to remove when a node goes.
 *
 * <p>Slots are few and live for the process: create each once, as a {@code static final} constant.
 * At most {@value #MAX} exist.
 *
 * @param <T> the kept type
 */
// T is not stored here: it types what NodeInfo.local and setLocal keep in the slot.
@SuppressWarnings("UnusedTypeParameter")
public final class NodeLocal<T> {

  /** The number of slots a process may create. */
  public static final int MAX = 16;

  private static final AtomicInteger created = new AtomicInteger();

  private final String name;
  final int index;

  private NodeLocal(String name, int index) {
    this.name = name;
    this.index = index;
  }

  /**
   * Creates a slot.
   *
   * @param name what the slot holds, for diagnostics
   * @throws IllegalStateException when {@value #MAX} slots exist already
   */
  public static <T> NodeLocal<T> create(String name) {
    requireNonNull(name, "name");
    int i = created.getAndIncrement();
    if (i >= MAX) {
      throw new IllegalStateException(
          "too many NodeLocal slots (at most " + MAX + "); create them as constants: " + name);
    }
    return new NodeLocal<>(name, i);
  }

  @Override
  public String toString() {
    return "NodeLocal{" + name + "}";
  }
}
