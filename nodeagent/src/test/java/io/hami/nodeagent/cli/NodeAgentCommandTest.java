package io.hami.nodeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.nodeagent.nvml.FakeGpuSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class NodeAgentCommandTest {

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new NodeAgentCommand());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    cl.setExitCodeExceptionMapper(t -> NodeAgentCommand.EXIT_USAGE);
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /**
   * The register annotation for {@code --fake-gpus}, written out by hand from the spec's writer
   * rules (§1.3, §7.1): keys in order, zero index and numa omitted, type kept as it starts with
   * NVIDIA, devmem = 143771 × 1, devcore = 100, count = 10, GPUs 0–3 on NUMA 0 and 4–7 on NUMA 1.
   */
  @Test
  void fakeGpusRegisterAnnotationIsExactlyTheSpecsForm() {
    Result r =
        run(
            "--node-name",
            "n1",
            "--fake-gpus",
            "8xNVIDIA-H200:143771MiB,numa=0-1",
            "--print-register");

    String[] uuids = {
      "GPU-b07be74f-7453-3786-9e19-9a02a6f13ceb", "GPU-27cf5db2-5ce3-30dc-8856-322369f9dfa2",
      "GPU-982138d7-e7c3-3a5a-9dd3-162a3fac6e9b", "GPU-95fdefd1-b3d9-3585-bd8b-6ebd78a254fc",
      "GPU-cf4ad6aa-9680-383f-acb0-fa2da45e8c83", "GPU-77dd5f89-d6be-33a7-ae70-ed847ded7f6c",
      "GPU-b392412a-65db-3bd6-9738-8c39ac0f1153", "GPU-335549e0-065b-3360-ba81-6d9b4651a808",
    };
    StringBuilder want = new StringBuilder("[");
    for (int i = 0; i < 8; i++) {
      want.append(i == 0 ? "" : ",").append("{\"id\":\"").append(uuids[i]).append('"');
      if (i > 0) {
        want.append(",\"index\":").append(i);
      }
      want.append(",\"count\":10,\"devmem\":143771,\"devcore\":100,\"type\":\"NVIDIA-H200\"");
      if (i >= 4) {
        want.append(",\"numa\":1");
      }
      want.append(",\"mode\":\"hami-core\",\"health\":true}");
    }
    want.append("]\n");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo(want.toString());
  }

  @Test
  void scalingAndSplitReachTheAnnotation() {
    Result r =
        run(
            "--node-name",
            "n1",
            "--fake-gpus",
            "1xTesla T4:15360MiB",
            "--print-register",
            "--device-split-count",
            "4",
            "--device-memory-scaling",
            "1.5",
            "--device-core-scaling",
            "2",
            "--mode",
            "mps");

    assertThat(r.out())
        .isEqualTo(
            "[{\"id\":\""
                + FakeGpuSpec.uuid("n1", 0)
                + "\",\"count\":4,\"devmem\":23040,\"devcore\":200,\"type\":\"NVIDIA-Tesla T4\",\"mode\":\"mps\",\"health\":true}]\n");
  }

  @Test
  void badFlagsExitTwoAndPrintEveryProblem() {
    Result r =
        run(
            "--node-name",
            "",
            "--device-split-count",
            "abc",
            "--device-memory-scaling",
            "-1",
            "--mode",
            "foo",
            "--metrics-address",
            "nope",
            "--register-interval",
            "10 sec",
            "--fake-gpus",
            "3xT4",
            "--resource-name",
            "gpu",
            "--lib-cuda-log-level",
            "9",
            "--exclude-gpu",
            "x");

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines())
        .containsExactlyInAnyOrder(
            "error: --device-split-count: 'abc' is not an integer",
            "error: --mode: 'foo' is not hami-core, mig or mps",
            "error: --register-interval: '10 sec' is not a duration such as 30s, 500ms or 1m",
            "error: --exclude-gpu: 'x' is neither a GPU UUID nor an index",
            "error: --metrics-address: 'nope' is not [host]:port",
            "error: node name: must be set (--node-name or NODE_NAME)",
            "error: resource name: 'gpu' is not <domain>/<name>",
            "error: device memory scaling: -1.0 must be > 0",
            "error: libcuda log level: '9' is not 0..4",
            "error: --fake-gpus: fake GPU group '3xT4' is not <count>x<model>:<memory>MiB|GiB[,numa=a-b][,mig]");
  }

  @Test
  void migModeRegistersTheAllowlistedProfiles(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("device-config.yaml");
    Files.writeString(
        yaml,
        """
        nvidia:
          migProfileAllowlist:
          - models: ["A100-SXM4-40GB"]
            profiles: ["1g.5gb", "7g.40gb"]
        """);

    Result r =
        run(
            "--node-name",
            "n1",
            "--fake-gpus",
            "1xNVIDIA A100-SXM4-40GB:40960MiB,mig",
            "--device-config-file",
            yaml.toString(),
            "--mode",
            "mig",
            "--print-register");

    assertThat(r.err()).isEmpty();
    assertThat(r.out())
        .isEqualTo(
            "[{\"id\":\""
                + FakeGpuSpec.uuid("n1", 0)
                + "\",\"count\":7,\"devmem\":40960,\"devcore\":100,"
                + "\"type\":\"NVIDIA A100-SXM4-40GB\",\"mode\":\"mig\",\"migProfiles\":["
                + "{\"name\":\"1g.5gb\",\"memoryMB\":4864,\"core\":15,\"sliceCount\":1,"
                + "\"placements\":[{\"start\":0,\"size\":1},{\"start\":1,\"size\":1},"
                + "{\"start\":2,\"size\":1},{\"start\":3,\"size\":1},{\"start\":4,\"size\":1},"
                + "{\"start\":5,\"size\":1},{\"start\":6,\"size\":1}]},"
                + "{\"name\":\"7g.40gb\",\"memoryMB\":40192,\"core\":100,\"sliceCount\":7,"
                + "\"placements\":[{\"start\":0,\"size\":8}]}],\"health\":true}]\n");
  }

  @Test
  void flagsWinOverFilesAndFilesOverDefaults(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("device-config.yaml");
    Files.writeString(yaml, "nvidia:\n  deviceSplitCount: 5\n  deviceMemoryScaling: 2\n");

    Result r =
        run(
            "--node-name",
            "n1",
            "--fake-gpus",
            "1xA10:1000MiB",
            "--print-register",
            "--device-config-file",
            yaml.toString(),
            "--device-split-count",
            "3");

    assertThat(r.out()).contains("\"count\":3,\"devmem\":2000,");
  }

  @Test
  void badConfigFileExitsTwo(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("device-config.yaml");
    Files.writeString(yaml, "nvidia:\n  deviceSplitCount: x\n");

    Result r =
        run(
            "--node-name",
            "n1",
            "--fake-gpus",
            "1xA10:1000MiB",
            "--device-config-file",
            yaml.toString(),
            "--device-core-scaling",
            "z");

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines())
        .containsExactlyInAnyOrder(
            "error: " + yaml + ": nvidia.deviceSplitCount: 'x' must be an integer",
            "error: --device-core-scaling: 'z' is not a number");
  }

  @Test
  void unknownFlagExitsTwo() {
    assertThat(run("--no-such-flag").code()).isEqualTo(2);
  }

  @Test
  void withoutNvmlTheAgentSaysSoAndExitsThree() {
    Assumptions.assumeFalse(Files.exists(Path.of("/dev/nvidiactl")), "a GPU host");
    Result r = run("--node-name", "n1", "--print-register");
    assertThat(r.code()).isEqualTo(3);
    assertThat(r.err()).startsWith("error: NVML not available");
  }
}
