package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A typed key into {@link CycleState}. Keys compare by identity; create one constant per plugin and
 * value type, named after the plugin ({@code "PreFilterNodeResourcesFit"}).
 *
 * @param <T> the type of the value stored under this key
 */
public final class StateKey<T extends StateData> {
  private static final AtomicInteger CREATED = new AtomicInteger();

  private final String name;
  private final Class<T> type;

  /** This key's slot in a {@link CycleState}'s array, or -1 for its map (see there). */
  final int slot;

  private StateKey(String name, Class<T> type) {
    this.name = requireNonNull(name, "name");
    this.type = requireNonNull(type, "type");
    int n = CREATED.getAndIncrement();
    this.slot = n < CycleState.SLOTS ? n : -1;
  }

  /** Creates a key; {@code name} is for diagnostics and should carry the plugin name. */
  public static <T extends StateData> StateKey<T> of(String name, Class<T> type) {
    checkArgument(!name.isEmpty(), "state key name must not be empty");
    return new StateKey<>(name, type);
  }

  public String name() {
    return name;
  }

  public Class<T> type() {
    return type;
  }

  @Override
  public String toString() {
    return "StateKey[" + name + "]";
  }
}
