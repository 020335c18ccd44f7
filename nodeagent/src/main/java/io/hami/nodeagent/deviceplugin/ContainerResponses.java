package io.hami.nodeagent.deviceplugin;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.resource.ContainerResources;
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

/**
 * The env, mounts and files one container gets (spec §7.5 step 4 and §7.6), with the limits file
 * and the usage region libvgpu reads (README, "What the node agent gives each container").
 */
final class ContainerResponses {
  private static final Logger log = LoggerFactory.getLogger(ContainerResponses.class);

  static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  static final String DISABLE_CONTROL = "CUDA_DISABLE_CONTROL";
  static final String ENV_PRIORITY = "CUDA_TASK_PRIORITY";

  /** The interception library, in {@code <hookPath>/vgpu} on the host and in the container. */
  static final String LIBRARY = "libvgpu.so";

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

  /**
   * The env and mounts of a container on shared GPUs. Before answering, the container directory
   * {@code <hookPath>/vgpu/containers/<podUID>_<container>} is made afresh with the limits file
   * (0444), the empty usage region (0666) and a mount point for the library; the directory is
   * mounted read-only at {@code <hookPath>/vgpu}, then the region read-write and the limits
   * read-only on top, so nothing in it can be created, removed or replaced from inside.
   */
  static ContainerAllocateResponse build(
      NodeAgentConfig config,
      Pod pod,
      Container container,
      List<ContainerDevice> devices,
      String cacheName)
      throws AllocationException {
    ContainerLimits limits = ContainerLimits.of(config, pod, container, devices);
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
    if (ContainerResources.of(container).has(ContainerLimits.PRIORITY_RESOURCE)) {
      r.putEnvs(ENV_PRIORITY, Integer.toString(limits.priority()));
    }
    String vgpu = config.hookPath().resolve("vgpu").toString();
    String region = cacheName + ".cache";
    r.putEnvs("CUDA_DEVICE_MEMORY_SHARED_CACHE", vgpu + "/" + region);
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
    try {
      limits.write(containerDir);
      createFile(containerDir.resolve(region), "rw-rw-rw-");
      // The read-only directory cannot take a mount point, so the library's is made here.
      createFile(containerDir.resolve(LIBRARY), "r--r--r--");
    } catch (IOException e) {
      throw new AllocationException(
          "cannot write the limits and region of " + containerDir + ": " + e, e);
    }
    r.addMounts(mount(vgpu, containerDir.toString(), true));
    r.addMounts(mount(vgpu + "/" + LIBRARY, vgpu + "/" + LIBRARY, true));
    r.addMounts(mount(vgpu + "/" + region, containerDir.resolve(region).toString(), false));
    r.addMounts(
        mount(
            ContainerLimits.CONTAINER_PATH,
            containerDir.resolve(ContainerLimits.FILE_NAME).toString(),
            true));
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

  /** An empty file with exactly {@code mode}, whatever the agent's umask. */
  private static void createFile(Path file, String mode) throws IOException {
    Files.createFile(file);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
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

  /**
   * A fresh per-container directory, owned by the agent and writable by it alone (the container
   * sees it read-only).
   */
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
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new AllocationException("cannot create the container directory " + dir + ": " + e, e);
    }
  }
}
