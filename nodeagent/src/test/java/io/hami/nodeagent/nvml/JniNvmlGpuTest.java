package io.hami.nodeagent.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** On a GPU host: JNI discovery lists what nvidia-smi lists. Run with -Pgpu. */
@Tag("gpu")
class JniNvmlGpuTest {

  @Test
  void discoveryMatchesNvidiaSmi() throws Exception {
    Process p =
        new ProcessBuilder(
                "nvidia-smi", "--query-gpu=uuid,name,memory.total", "--format=csv,noheader,nounits")
            .redirectErrorStream(true)
            .start();
    List<String> smi = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isBlank()) {
          smi.add(line.trim());
        }
      }
    }
    assertThat(p.waitFor()).isZero();
    try (JniNvml nvml = JniNvml.open(SysfsNuma.system())) {
      List<String> ours = new ArrayList<>();
      for (GpuInfo g : nvml.devices()) {
        ours.add(g.uuid() + ", " + g.model() + ", " + g.memoryMiB());
        System.out.println("GPU " + g);
      }
      System.out.println("nvidia-smi: " + smi);
      assertThat(ours).containsExactlyElementsOf(smi);
      if (ours.size() > 1) {
        System.out.println("link 0-1: " + nvml.pcieLink(0, 1) + ", nvlinks " + nvml.nvLinks(0, 1));
      }
      try (XidWatch w = nvml.watchXids()) {
        assertThat(w.await(Duration.ofMillis(100))).isEmpty();
      }
    }
  }
}
