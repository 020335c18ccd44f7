package io.hami.nodeagent.deviceplugin;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.model.pod.ContainerDevice;
import io.hami.nodeagent.config.NodeAgentConfig;
import io.hami.nodeagent.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.hami.nodeagent.deviceplugin.v1beta1.Mount;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The env and mounts one container gets (spec §7.5 step 4 and §7.6). */
final class ContainerResponses {
  private static final Logger log = LoggerFactory.getLogger(ContainerResponses.class);

  static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  static final String DISABLE_CONTROL = "CUDA_DISABLE_CONTROL";

  private ContainerResponses() {}

  /**
   * Devices passed through as they are (native MIG IDs, or the MIG instances created in MIG mode):
   * no HAMi-core env or mounts.
   */
  static ContainerAllocateResponse passthrough(List<String> ids) {
    return ContainerAllocateResponse.newBuilder()
        .putEnvs(VISIBLE_DEVICES, String.join(",", new LinkedHashSet<>(ids)))
        .build();
  }

  static ContainerAllocateResponse build(
      NodeAgentConfig config,
      Pod pod,
      Container container,
      List<ContainerDevice> devices,
      String cacheName)
      throws AllocationException {
    Set<String> uuids = new LinkedHashSet<>();
    for (ContainerDevice d : devices) {
      uuids.add(d.uuid());
    }
    ContainerAllocateResponse.Builder r = ContainerAllocateResponse.newBuilder();
    r.putEnvs(VISIBLE_DEVICES, String.join(",", uuids));
    for (int i = 0; i < devices.size(); i++) {
      r.putEnvs("CUDA_DEVICE_MEMORY_LIMIT_" + i, devices.get(i).usedmem() + "m");
    }
    r.putEnvs("CUDA_DEVICE_SM_LIMIT", Integer.toString(devices.get(0).usedcores()));
    String vgpu = config.hookPath().resolve("vgpu").toString();
    r.putEnvs("CUDA_DEVICE_MEMORY_SHARED_CACHE", vgpu + "/" + cacheName + ".cache");
    if (config.memoryScaling() > 1) {
      r.putEnvs("CUDA_OVERSUBSCRIBE", "true");
    }
    if (config.libCudaLogLevel() != null) {
      r.putEnvs("LIBCUDA_LOG_LEVEL", config.libCudaLogLevel());
    }
    if (config.disableCoreLimit()) {
      r.putEnvs("GPU_CORE_UTILIZATION_POLICY", "disable");
    }
    if (config.monitor() && config.hostPidBroker() != null) {
      // libvgpu asks the agent's broker for its host pid (the socket is under /tmp/vgpulock).
      r.putEnvs("LIBVGPU_HOSTPID_BROKER", "1");
    }

    Path containerDir =
        config
            .hookPath()
            .resolve("vgpu")
            .resolve("containers")
            .resolve(pod.getMetadata().getUid() + "_" + container.getName());
    recreate(containerDir);
    r.addMounts(mount(vgpu + "/libvgpu.so", vgpu + "/libvgpu.so", true));
    r.addMounts(mount(vgpu, containerDir.toString(), false));
    r.addMounts(mount("/tmp/vgpulock", "/tmp/vgpulock", false));
    if (!controlDisabled(config, pod, container)) {
      r.addMounts(mount("/etc/ld.so.preload", vgpu + "/ld.so.preload", true));
    }
    if (Files.exists(config.hookPath().resolve("vgpu").resolve("license"))) {
      r.addMounts(mount("/tmp/license", vgpu + "/license", true));
      r.addMounts(mount("/usr/bin/vgpuvalidator", vgpu + "/vgpuvalidator", true));
    }
    return r.build();
  }

  /**
   * True when the container asks for {@code CUDA_DISABLE_CONTROL} and the agent allows it; a tenant
   * cannot opt out of its limits unless the operator said so.
   */
  static boolean controlDisabled(NodeAgentConfig config, Pod pod, Container container) {
    boolean asked = false;
    if (container.getEnv() != null) {
      for (EnvVar e : container.getEnv()) {
        if (DISABLE_CONTROL.equals(e.getName()) && parseGoBool(e.getValue())) {
          asked = true;
        }
      }
    }
    if (asked && !config.allowDisableControl()) {
      log.warn(
          "ignoring {}=true: not allowed on this node pod={}/{} container={}",
          DISABLE_CONTROL,
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          container.getName());
      return false;
    }
    return asked;
  }

  static boolean parseGoBool(@Nullable String v) {
    return v != null
        && switch (v) {
          case "1", "t", "T", "true", "TRUE", "True" -> true;
          default -> false;
        };
  }

  private static Mount mount(String containerPath, String hostPath, boolean readOnly) {
    return Mount.newBuilder()
        .setContainerPath(containerPath)
        .setHostPath(hostPath)
        .setReadOnly(readOnly)
        .build();
  }

  /** A fresh per-container directory, writable by any user in the container. */
  private static void recreate(Path dir) throws AllocationException {
    try {
      if (Files.exists(dir)) {
        Files.walkFileTree(
            dir,
            new SimpleFileVisitor<>() {
              @Override
              public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                  throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
              }

              @Override
              public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
              }
            });
      }
      Files.createDirectories(dir);
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    } catch (IOException e) {
      throw new AllocationException("cannot create the container directory " + dir + ": " + e, e);
    }
  }
}
