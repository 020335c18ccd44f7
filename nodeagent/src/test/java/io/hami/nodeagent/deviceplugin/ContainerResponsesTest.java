package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.hami.model.pod.ContainerDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.Mount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    assertThat(hook.resolve("vgpu/containers/u1_c")).isEmptyDirectory();
    assertThat(Files.getPosixFilePermissions(hook.resolve("vgpu/containers/u1_c"))).hasSize(9);
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
