package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hami.model.pod.ContainerDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.Mount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ContainerResponsesTest {
  @TempDir Path hook;

  static final Pod POD =
      new PodBuilder()
          .withNewMetadata()
          .withName("p")
          .withNamespace("ns")
          .withUid("u1")
          .endMetadata()
          .build();
  static final List<ContainerDevice> DEVICES =
      List.of(
          new ContainerDevice("GPU-a", "NVIDIA", 1000, 30),
          new ContainerDevice("GPU-a", "NVIDIA", 2000, 40));

  static Container container(String disableControl) {
    return new ContainerBuilder()
        .withName("c")
        .addNewEnv()
        .withName("CUDA_DISABLE_CONTROL")
        .withValue(disableControl)
        .endEnv()
        .build();
  }

  NodeAgentConfig.Builder config() {
    return NodeAgentConfig.builder("n").hookPath(hook);
  }

  @Test
  void disableControlIsIgnoredUnlessAllowed() throws Exception {
    ContainerAllocateResponse denied =
        ContainerResponses.build(config().build(), POD, container("true"), DEVICES, "x");
    ContainerAllocateResponse allowed =
        ContainerResponses.build(
            config().allowDisableControl(true).build(), POD, container("true"), DEVICES, "x");
    ContainerAllocateResponse notAsked =
        ContainerResponses.build(
            config().allowDisableControl(true).build(), POD, container("false"), DEVICES, "x");

    assertThat(denied.getMountsList())
        .extracting(Mount::getContainerPath)
        .contains("/etc/ld.so.preload");
    assertThat(allowed.getMountsList())
        .extracting(Mount::getContainerPath)
        .doesNotContain("/etc/ld.so.preload");
    assertThat(notAsked.getMountsList())
        .extracting(Mount::getContainerPath)
        .contains("/etc/ld.so.preload");
  }

  @Test
  void optionalEnvFollowsTheConfig() throws Exception {
    ContainerAllocateResponse r =
        ContainerResponses.build(
            config().memoryScaling(1.5).libCudaLogLevel("4").disableCoreLimit(true).build(),
            POD,
            container("0"),
            DEVICES,
            "c1");

    assertThat(r.getEnvsMap())
        .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-a")
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "1000m")
        .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_1", "2000m")
        .containsEntry("CUDA_DEVICE_SM_LIMIT", "30")
        .containsEntry("CUDA_OVERSUBSCRIBE", "true")
        .containsEntry("LIBCUDA_LOG_LEVEL", "4")
        .containsEntry("GPU_CORE_UTILIZATION_POLICY", "disable")
        .containsEntry("CUDA_DEVICE_MEMORY_SHARED_CACHE", hook.resolve("vgpu") + "/c1.cache");
  }

  @Test
  void licenseMountsWhenPresentAndContainerDirIsFresh() throws Exception {
    Files.createDirectories(hook.resolve("vgpu/containers/u1_c"));
    Files.writeString(hook.resolve("vgpu/containers/u1_c/old.cache"), "stale");
    Files.writeString(hook.resolve("vgpu/license"), "l");

    ContainerAllocateResponse r =
        ContainerResponses.build(config().build(), POD, container("0"), DEVICES, "x");

    assertThat(r.getMountsList())
        .extracting(Mount::getContainerPath)
        .endsWith("/tmp/license", "/usr/bin/vgpuvalidator");
    Path dir = hook.resolve("vgpu/containers/u1_c");
    assertThat(dir.resolve("old.cache")).doesNotExist();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("limits", "x.cache", "libvgpu.so");
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwxr-xr-x");
  }

  /** One case of the limits file: what Allocate is given and the file it must write. */
  record LimitsCase(
      String name,
      NodeAgentConfig.Builder config,
      Container container,
      List<ContainerDevice> devices,
      String want) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final String HEAD =
      "# written by the hami node agent at Allocate; mounted read-only\nversion=1\n";

  static Container ctr(@Nullable String priority, String... env) {
    ContainerBuilder b = new ContainerBuilder().withName("c");
    if (priority != null) {
      b.withNewResources()
          .addToLimits("nvidia.com/priority", new Quantity(priority))
          .endResources();
    }
    for (int i = 0; i < env.length; i += 2) {
      b.addNewEnv().withName(env[i]).withValue(env[i + 1]).endEnv();
    }
    return b.build();
  }

  static Stream<LimitsCase> limitsCases() {
    NodeAgentConfig.Builder plain = NodeAgentConfig.builder("n");
    return Stream.of(
        new LimitsCase(
            "one GPU",
            plain,
            ctr(null),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 3000, 30)),
            HEAD
                + "memory_limit_0=3145728000\nsm_limit=30\ncore_policy=default\npriority=1\n"
                + "oversubscribe=false\n"),
        new LimitsCase(
            "two GPUs, the second with its own SM limit",
            NodeAgentConfig.builder("n").memoryScaling(2),
            ctr("1"),
            List.of(
                new ContainerDevice("GPU-a", "NVIDIA", 1024, 30),
                new ContainerDevice("GPU-b", "NVIDIA", 2048, 50)),
            HEAD
                + "memory_limit_0=1073741824\nmemory_limit_1=2147483648\nsm_limit=30\n"
                + "sm_limit_1=50\ncore_policy=default\npriority=1\noversubscribe=true\n"),
        new LimitsCase(
            "core limit off on the node",
            NodeAgentConfig.builder("n").disableCoreLimit(true),
            ctr(null, "GPU_CORE_UTILIZATION_POLICY", "force"),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 1, 100)),
            HEAD
                + "memory_limit_0=1048576\nsm_limit=100\ncore_policy=disable\npriority=1\n"
                + "oversubscribe=false\n"),
        new LimitsCase(
            "force from the webhook's env",
            plain,
            ctr(null, "GPU_CORE_UTILIZATION_POLICY", "force"),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 0, 0)),
            HEAD
                + "memory_limit_0=0\nsm_limit=0\ncore_policy=force\npriority=1\n"
                + "oversubscribe=false\n"),
        new LimitsCase(
            "disable asked by the container, not allowed",
            plain,
            ctr(null, "GPU_CORE_UTILIZATION_POLICY", "disable"),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 1, 20)),
            HEAD
                + "memory_limit_0=1048576\nsm_limit=20\ncore_policy=default\npriority=1\n"
                + "oversubscribe=false\n"),
        new LimitsCase(
            "disable asked by the container, allowed",
            NodeAgentConfig.builder("n").allowDisableControl(true),
            ctr(null, "GPU_CORE_UTILIZATION_POLICY", "disable"),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 1, 20)),
            HEAD
                + "memory_limit_0=1048576\nsm_limit=20\ncore_policy=disable\npriority=1\n"
                + "oversubscribe=false\n"),
        new LimitsCase(
            "priority 0",
            plain,
            ctr("0"),
            List.of(new ContainerDevice("GPU-a", "NVIDIA", 2, 10)),
            HEAD
                + "memory_limit_0=2097152\nsm_limit=10\ncore_policy=default\npriority=0\n"
                + "oversubscribe=false\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limitsCases")
  void limitsFile(LimitsCase c) throws Exception {
    ContainerAllocateResponse r =
        ContainerResponses.build(
            c.config().hookPath(hook).build(), POD, c.container(), c.devices(), "r");

    Path limits = hook.resolve("vgpu/containers/u1_c/limits");
    assertThat(Files.readString(limits)).isEqualTo(c.want());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(limits)))
        .isEqualTo("r--r--r--");
    assertThat(r.getEnvsMap()).containsKey("CUDA_DEVICE_SM_LIMIT");
  }

  @Test
  void limitsFile_replacesAnOlderOneAtOnce() throws Exception {
    NodeAgentConfig cfg = config().build();
    ContainerResponses.build(cfg, POD, ctr("0"), DEVICES, "r1");
    ContainerResponses.build(cfg, POD, ctr("1"), DEVICES, "r2");

    Path dir = hook.resolve("vgpu/containers/u1_c");
    assertThat(Files.readString(dir.resolve("limits"))).contains("priority=1\n");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("limits", "r2.cache", "libvgpu.so");
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "2|container c: nvidia.com/priority=2 must be 0 (high) or 1 (low)",
        "high|container c: nvidia.com/priority=high must be 0 (high) or 1 (low)",
        "500m|container c: nvidia.com/priority=500m must be 0 (high) or 1 (low)",
        "-1|container c: nvidia.com/priority=-1 must be 0 (high) or 1 (low)",
      })
  void malformedPriority_refusesTheAllocation(String priority, String message) {
    Container c = rawPriority(priority);
    assertThatThrownBy(() -> ContainerResponses.build(config().build(), POD, c, DEVICES, "r"))
        .isInstanceOf(AllocationException.class)
        .hasMessage(message);
    assertThat(hook.resolve("vgpu/containers/u1_c")).doesNotExist();
  }

  /** A quantity fabric8 keeps as written, as an API object decoded from JSON would carry it. */
  static Container rawPriority(String value) {
    Quantity q = new Quantity();
    q.setAmount(value);
    return new ContainerBuilder()
        .withName("c")
        .withNewResources()
        .addToLimits("nvidia.com/priority", q)
        .endResources()
        .build();
  }

  @Test
  void malformedCorePolicy_refusesTheAllocation() {
    assertThatThrownBy(
            () ->
                ContainerResponses.build(
                    config().build(),
                    POD,
                    ctr(null, "GPU_CORE_UTILIZATION_POLICY", "off"),
                    DEVICES,
                    "r"))
        .isInstanceOf(AllocationException.class)
        .hasMessage(
            "container c: env GPU_CORE_UTILIZATION_POLICY=off is not default, force or disable");
  }

  @Test
  void priority_isPassedOnAsEnvWhenAsked() throws Exception {
    assertThat(ContainerResponses.build(config().build(), POD, ctr("0"), DEVICES, "r").getEnvsMap())
        .containsEntry("CUDA_TASK_PRIORITY", "0");
    assertThat(
            ContainerResponses.build(config().build(), POD, ctr(null), DEVICES, "r").getEnvsMap())
        .doesNotContainKey("CUDA_TASK_PRIORITY");
  }

  @Test
  void regionIsEmptyAndWritableByAnyUser() throws Exception {
    ContainerResponses.build(config().build(), POD, container("0"), DEVICES, "r");

    Path dir = hook.resolve("vgpu/containers/u1_c");
    assertThat(dir.resolve("r.cache")).isEmptyFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("r.cache"))))
        .isEqualTo("rw-rw-rw-");
    assertThat(dir.resolve("libvgpu.so")).isEmptyFile();
    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("libvgpu.so"))))
        .isEqualTo("r--r--r--");
  }

  @Test
  void mounts_directoryReadOnlyFirst_thenTheFiles() throws Exception {
    ContainerAllocateResponse r =
        ContainerResponses.build(config().build(), POD, container("0"), DEVICES, "r");

    String vgpu = hook.resolve("vgpu").toString();
    String dir = hook.resolve("vgpu/containers/u1_c").toString();
    assertThat(r.getMountsList())
        .containsExactly(
            mount(vgpu, dir, true),
            mount(vgpu + "/libvgpu.so", vgpu + "/libvgpu.so", true),
            mount(vgpu + "/r.cache", dir + "/r.cache", false),
            mount("/etc/vgpu/limits", dir + "/limits", true),
            mount("/tmp/vgpulock", "/tmp/vgpulock", false),
            mount("/etc/ld.so.preload", vgpu + "/ld.so.preload", true));
    assertThat(r.getEnvsMap()).containsEntry("CUDA_DEVICE_MEMORY_SHARED_CACHE", vgpu + "/r.cache");
  }

  static Mount mount(String containerPath, String hostPath, boolean readOnly) {
    return Mount.newBuilder()
        .setContainerPath(containerPath)
        .setHostPath(hostPath)
        .setReadOnly(readOnly)
        .build();
  }

  @Test
  void passthroughOnlyNamesTheDevices() {
    ContainerAllocateResponse r =
        ContainerResponses.passthrough(List.of("MIG-a", "MIG-b", "MIG-a"));
    assertThat(r.getEnvsMap()).containsExactly(entry("NVIDIA_VISIBLE_DEVICES", "MIG-a,MIG-b"));
    assertThat(r.getMountsList()).isEmpty();
  }

  @Test
  void goBools() {
    for (String t : List.of("1", "t", "T", "true", "TRUE", "True")) {
      assertThat(ContainerResponses.parseGoBool(t)).as(t).isTrue();
    }
    for (String f : List.of("0", "false", "yes", "", "tRuE")) {
      assertThat(ContainerResponses.parseGoBool(f)).as(f).isFalse();
    }
  }
}
