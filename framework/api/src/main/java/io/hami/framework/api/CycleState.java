package io.hami.framework.api;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Per-pod scratch space for one scheduling attempt, shared by the plugins of a profile and carried
 * into the binding cycle.
 *
 * <p>Concurrency: values are normally written on the scheduling thread in PreFilter, PreScore and
 * Reserve, then read concurrently by Filter and Score. Slots and map are safe for concurrent reads
 * and writes; values themselves should be immutable or only mutated by AddPod/RemovePod on a {@link
 * #copy()}.
 */
public final class CycleState {
  /**
   * Keys get slots in the order they are created, the first {@code SLOTS} in an array read without
   * hashing (Filter and Score read the state once per plugin and node), any later ones in a map.
   */
  static final int SLOTS = 64;

  private final AtomicReferenceArray<StateData> slots;
  private final Map<StateKey<?>, StateData> others;

  public CycleState() {
    this(new AtomicReferenceArray<>(SLOTS), new ConcurrentHashMap<>());
  }

  private CycleState(AtomicReferenceArray<StateData> slots, Map<StateKey<?>, StateData> others) {
    this.slots = slots;
    this.others = others;
  }

  /** Stores {@code value} under {@code key}, replacing any earlier value. */
  public <T extends StateData> void write(StateKey<T> key, T value) {
    StateData v = key.type().cast(value);
    if (key.slot >= 0) {
      slots.set(key.slot, v);
    } else {
      others.put(key, v);
    }
  }

  /** Returns the value under {@code key}, if any. */
  public <T extends StateData> Optional<T> read(StateKey<T> key) {
    return Optional.ofNullable(get(key));
  }

  /** Returns the value under {@code key}, or null. */
  public <T extends StateData> @Nullable T get(StateKey<T> key) {
    StateData value = key.slot >= 0 ? slots.get(key.slot) : others.get(key);
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
    if (key.slot >= 0) {
      slots.set(key.slot, null);
    } else {
      others.remove(key);
    }
  }

  /** Returns a copy whose values are {@link StateData#copy() copied}. */
  public CycleState copy() {
    AtomicReferenceArray<StateData> s = new AtomicReferenceArray<>(SLOTS);
    for (int i = 0; i < SLOTS; i++) {
      StateData v = slots.get(i);
      if (v != null) {
        s.set(i, v.copy());
      }
    }
    Map<StateKey<?>, StateData> copied = new ConcurrentHashMap<>(others.size() * 2 + 1);
    others.forEach((k, v) -> copied.put(k, v.copy()));
    return new CycleState(s, copied);
  }
}
