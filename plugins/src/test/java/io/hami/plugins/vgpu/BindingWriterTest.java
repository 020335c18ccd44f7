package io.hami.plugins.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.VersionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BindingWriterTest {

  @ParameterizedTest(name = "{0}.{1} -> {2}")
  @CsvSource({
    "1, 36, true",
    "1, 35, true",
    "1, 35+, true",
    "1, 34, false",
    "1, 34+, false",
    "1, 0, false",
    "2, 0, true",
    "1, '', false",
    "'', 36, false",
    "x, y, false"
  })
  void labelsAreCopiedByBindingFrom135(String major, String minor, boolean copied) {
    VersionInfo v = new VersionInfo.Builder().withMajor(major).withMinor(minor).build();
    assertThat(BindingWriter.copiesBindingLabels(v)).isEqualTo(copied);
  }

  @Test
  void noVersion_isNotCopied() {
    assertThat(BindingWriter.copiesBindingLabels(null)).isFalse();
  }
}
