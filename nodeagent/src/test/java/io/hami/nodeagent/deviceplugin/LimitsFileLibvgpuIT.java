package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.model.pod.ContainerDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits file the agent writes at Allocate, read by libvgpu's own parser (its {@code
 * src/limits.c} and {@code src/env.c}, compiled here with a small driver): what the library will
 * enforce must be what the scheduler granted. Skipped where libvgpu has no limits-file reader.
 * {@code -Dlibvgpu.dir=<dir>} points at another libvgpu tree.
 */
class LimitsFileLibvgpuIT {
  static final Path LIBVGPU =
      Path.of(System.getProperty("libvgpu.dir", "../libvgpu")).toAbsolutePath().normalize();

  @TempDir Path tmp;

  /** Parses argv[1] as libvgpu does, applies it on an empty config and prints what it enforces. */
  static final String DRIVER =
      """
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include "internal.h"
      int main(int argc, char **argv) {
        static char text[65536];
        FILE *f = fopen(argv[1], "r");
        if (f == NULL) return 2;
        size_t n = fread(text, 1, sizeof text, f);
        fclose(f);
        vgpu_limits l;
        vgpu_limits_error e;
        if (vgpu_limits_parse(text, n, &l, &e) != 0) {
          printf("invalid line=%d key=%s value=%s reason=%s\\n", e.line, e.key, e.value, e.reason);
          return 0;
        }
        vgpu_config c;
        memset(&c, 0, sizeof c);
        c.priority = 1;
        vgpu_limits_apply(&c, &l);
        printf("version=%d unknown=%d\\n", l.version, l.unknown_keys);
        for (int i = 0; i < 3; i++) {
          printf("device %d memory=%llu sm=%u\\n", i, (unsigned long long) c.mem_limit[i],
                 c.sm_limit[i]);
        }
        printf("policy=%u priority=%d oversubscribe=%d\\n", c.core_policy, c.priority,
               c.oversubscribe);
        return 0;
      }
      """;

  @Test
  void libvgpuEnforcesWhatTheAgentWrote() throws Exception {
    assumeTrue(
        Files.exists(LIBVGPU.resolve("src/limits.c")),
        "libvgpu at " + LIBVGPU + " has no limits-file reader");
    Path hook = tmp.resolve("hook");
    Pod pod = new PodBuilder().withNewMetadata().withName("p").withUid("u1").endMetadata().build();
    Container container =
        new ContainerBuilder()
            .withName("c")
            .withNewResources()
            .addToLimits("nvidia.com/priority", new Quantity("0"))
            .endResources()
            .addNewEnv()
            .withName("GPU_CORE_UTILIZATION_POLICY")
            .withValue("force")
            .endEnv()
            .build();
    ContainerResponses.build(
        NodeAgentConfig.builder("n").hookPath(hook).memoryScaling(1.5).build(),
        pod,
        container,
        List.of(
            new ContainerDevice("GPU-a", "NVIDIA", 3000, 30),
            new ContainerDevice("GPU-b", "NVIDIA", 1024, 60)),
        "r");

    Path driver = tmp.resolve("limits_driver.c");
    Path exe = tmp.resolve("limits_driver");
    Files.writeString(driver, DRIVER);
    run(
        "gcc",
        "-std=gnu11",
        "-I" + LIBVGPU.resolve("include"),
        "-I" + LIBVGPU.resolve("src"),
        "-o",
        exe.toString(),
        driver.toString(),
        LIBVGPU.resolve("src/limits.c").toString(),
        LIBVGPU.resolve("src/env.c").toString(),
        LIBVGPU.resolve("src/log.c").toString(),
        "-ldl",
        "-lpthread");

    assertThat(run(exe.toString(), hook.resolve("vgpu/containers/u1_c/limits").toString()))
        .containsExactly(
            "version=1 unknown=0",
            "device 0 memory=3145728000 sm=30",
            "device 1 memory=1073741824 sm=60",
            "device 2 memory=0 sm=30",
            "policy=1 priority=0 oversubscribe=1");
  }

  private static List<String> run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(String.join(" ", cmd) + "\n" + out).isZero();
    return new ArrayList<>(out.lines().toList());
  }
}
