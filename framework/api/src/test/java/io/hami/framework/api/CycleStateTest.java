package io.hami.framework.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CycleStateTest {
  /** A mutable value, so that copies can be told apart. */
  private static final class Counter implements StateData {
    int n;

    Counter(int n) {
      this.n = n;
    }

    @Override
    public StateData copy() {
      return new Counter(n);
    }
  }

  /** More keys than the array has slots: the later ones live in the map. */
  private static List<StateKey<Counter>> keys() {
    List<StateKey<Counter>> keys = new ArrayList<>();
    for (int i = 0; i < CycleState.SLOTS + 8; i++) {
      keys.add(StateKey.of("Counter" + i, Counter.class));
    }
    return keys;
  }

  @Test
  void everyKeyReadsWhatWasWrittenUnderIt_inSlotsAndMap() {
    List<StateKey<Counter>> keys = keys();
    assertThat(keys.get(keys.size() - 1).slot).isEqualTo(-1);
    CycleState state = new CycleState();
    for (int i = 0; i < keys.size(); i++) {
      state.write(keys.get(i), new Counter(i));
    }
    for (int i = 0; i < keys.size(); i++) {
      assertThat(state.require(keys.get(i)).n).isEqualTo(i);
    }
    for (StateKey<Counter> k : keys) {
      state.delete(k);
      assertThat(state.get(k)).isNull();
      assertThat(state.read(k)).isEmpty();
    }
    assertThatThrownBy(() -> state.require(keys.get(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Counter0");
  }

  @Test
  void copyCopiesEveryValue_andChangesStayApart() {
    List<StateKey<Counter>> keys = keys();
    CycleState state = new CycleState();
    for (int i = 0; i < keys.size(); i++) {
      state.write(keys.get(i), new Counter(i));
    }
    CycleState copy = state.copy();
    for (int i = 0; i < keys.size(); i++) {
      copy.require(keys.get(i)).n += 100;
    }
    for (int i = 0; i < keys.size(); i++) {
      assertThat(state.require(keys.get(i)).n).isEqualTo(i);
      assertThat(copy.require(keys.get(i)).n).isEqualTo(i + 100);
    }
    copy.delete(keys.get(0));
    copy.delete(keys.get(keys.size() - 1));
    assertThat(state.get(keys.get(0))).isNotNull();
    assertThat(state.get(keys.get(keys.size() - 1))).isNotNull();
  }

  @Test
  void aValueOfAnotherTypeIsRefused() {
    @SuppressWarnings({"unchecked", "rawtypes"})
    StateKey<StateData> key = (StateKey) StateKey.of("Typed", Counter.class);
    CycleState state = new CycleState();
    assertThatThrownBy(() -> state.write(key, new StateData() {}))
        .isInstanceOf(ClassCastException.class);
  }
}
