package io.hami.plugins.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

final class HamiRecordsTest {
  @Test
  void readsEveryRecordOfAFunction() {
    var records = HamiRecords.of("nvidia.Fit");
    assertThat(records).hasSize(972);
    assertThat(records.get(0).name()).isEqualTo("TestDevices_Fit/fit_success");
    assertThat(records.get(0).fn()).isEqualTo("nvidia.Fit");
    assertThat(records.get(0).out().path("fit").asBoolean()).isTrue();
  }

  @Test
  void anUnknownFunctionIsNamed() {
    assertThatThrownBy(() -> HamiRecords.of("nvidia.Nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nvidia.Nope");
  }
}
