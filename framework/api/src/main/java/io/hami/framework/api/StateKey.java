package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A typed key into {@link CycleState}. Keys compare by identity; create one constant per plugin and
 * value type, named after the plugin ({@code "PreFilterNodeResourcesFit"}).
 *
 * @param <T> the type of the value stored under this key
 */
public final class StateKey<T extends StateData> {
  private final String name;
  private final Class<T> type;

  private StateKey(String name, Class<T> type) {
    this.name = requireNonNull(name, "name");
    this.type = requireNonNull(type, "type");
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
