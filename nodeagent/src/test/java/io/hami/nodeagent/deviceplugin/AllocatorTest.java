package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AllocatorTest {

  /** Served entries are emptied; everything else is kept byte for byte (spec §7.5 step 5). */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "GPU-aaa,NVIDIA,3000,50:;GPU-bbb,NVIDIA,4000,60:;|true,false|;GPU-bbb,NVIDIA,4000,60:;",
        "GPU-aaa,NVIDIA,3000,50:;GPU-bbb,NVIDIA,4000,60:;|false,true|GPU-aaa,NVIDIA,3000,50:;;",
        ";GPU-aaa,NVIDIA,1000,30:;|false,true|;;",
        "GPU-a,NVIDIA,1,2:GPU-b,NVIDIA,1,2:;|true|;",
      })
  void emptied(String raw, String served, String want) {
    String[] s = served.split(",");
    boolean[] b = new boolean[s.length];
    for (int i = 0; i < s.length; i++) {
      b[i] = Boolean.parseBoolean(s[i]);
    }
    assertThat(Allocator.emptied(raw, b)).isEqualTo(want);
  }
}
