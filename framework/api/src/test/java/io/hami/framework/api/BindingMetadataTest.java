package io.hami.framework.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BindingMetadataTest {

  @Test
  void nothingAdded_isEmpty() {
    assertThat(BindingMetadata.of(new CycleState())).isSameAs(BindingMetadata.EMPTY);
    assertThat(BindingMetadata.EMPTY.isEmpty()).isTrue();
  }

  @Test
  void additions_merge_laterValuesWinAKey() {
    CycleState state = new CycleState();
    BindingMetadata.add(state, Map.of("a", "1", "b", "1"), Map.of());
    BindingMetadata.add(state, Map.of("b", "2"), Map.of("l", "x"));

    BindingMetadata m = BindingMetadata.of(state);
    assertThat(m.annotations()).containsExactlyInAnyOrderEntriesOf(Map.of("a", "1", "b", "2"));
    assertThat(m.labels()).containsExactlyEntriesOf(Map.of("l", "x"));
    assertThat(m.isEmpty()).isFalse();
  }

  @Test
  void aCopiedCycleState_sharesTheImmutableValue_andLaterAdditionsStayApart() {
    CycleState state = new CycleState();
    BindingMetadata.add(state, Map.of("a", "1"), Map.of());
    CycleState copy = state.copy();
    BindingMetadata.add(copy, Map.of("b", "1"), Map.of());

    assertThat(BindingMetadata.of(state).annotations()).containsOnlyKeys("a");
    assertThat(BindingMetadata.of(copy).annotations()).containsOnlyKeys("a", "b");
  }
}
