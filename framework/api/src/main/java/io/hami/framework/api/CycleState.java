package io.hami.framework.api;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Per-pod scratch space for one scheduling attempt, shared by the plugins of a profile and carried
 * into the binding cycle.
 *
 * <p>Concurrency: values are normally written on the scheduling thread in PreFilter, PreScore and
 * Reserve, then read concurrently by Filter and Score. The map is concurrent so that reads during
 * the fan-out are safe; values themselves should be immutable or only mutated by AddPod/RemovePod
 * on a {@link #copy()}.
 */
public final class CycleState {
  private final Map<StateKey<?>, StateData> values;

  public CycleState() {
    this.values = new ConcurrentHashMap<>();
  }

  private CycleState(Map<StateKey<?>, StateData> values) {
    this.values = values;
  }

  /** Stores {@code value} under {@code key}, replacing any earlier value. */
  public <T extends StateData> void write(StateKey<T> key, T value) {
    values.put(key, key.type().cast(value));
  }

  /** Returns the value under {@code key}, if any. */
  public <T extends StateData> Optional<T> read(StateKey<T> key) {
    return Optional.ofNullable(get(key));
  }

  /** Returns the value under {@code key}, or null. */
  public <T extends StateData> @Nullable T get(StateKey<T> key) {
    StateData value = values.get(key);
    return value == null ? null : key.type().cast(value);
  }

  /**
   * Returns the value under {@code key}.
   *
   * @throws IllegalStateException if nothing was written, i.e. the writing point did not run
   */
  public <T extends StateData> T require(StateKey<T> key) {
    T value = get(key);
    if (value == null) {
      throw new IllegalStateException("no cycle state for " + key.name());
    }
    return value;
  }

  /** Removes the value under {@code key}. */
  public void delete(StateKey<?> key) {
    values.remove(key);
  }

  /** Returns a copy whose values are {@link StateData#copy() copied}. */
  public CycleState copy() {
    Map<StateKey<?>, StateData> copied = new ConcurrentHashMap<>(values.size() * 2 + 1);
    values.forEach((k, v) -> copied.put(k, v.copy()));
    return new CycleState(copied);
  }
}
