package io.hami.nodeagent.deviceplugin;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.hami.model.Decoded;
import io.hami.model.config.GpuCorePolicy;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.resource.ContainerResources;
import io.hami.model.resource.Quantities;
import io.hami.model.resource.ResourceNames;
import io.hami.nodeagent.config.NodeAgentConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What libvgpu enforces in one container, written by the agent at Allocate into a file the
 * container can only read ({@value #CONTAINER_PATH}). Every key of the file wins over the matching
 * environment variable in libvgpu, so a tenant cannot lift a limit by its own environment.
 *
 * @param memoryLimitBytes per container CUDA ordinal, bytes; 0 = unlimited
 * @param smLimits per container CUDA ordinal, percent; 0 or 100 = unlimited
 * @param corePolicy how the SM limit applies
 * @param priority 0 = high, 1 = low
 * @param oversubscribe whether device memory may spill to host memory
 */
record ContainerLimits(
    ImmutableList<Long> memoryLimitBytes,
    ImmutableList<Integer> smLimits,
    GpuCorePolicy corePolicy,
    int priority,
    boolean oversubscribe) {
  private static final Logger log = LoggerFactory.getLogger(ContainerLimits.class);

  /** The file's name in the container directory. */
  static final String FILE_NAME = "limits";

  /** Where libvgpu reads the file (its compile-time {@code VGPU_LIMITS_PATH}). */
  static final String CONTAINER_PATH = "/etc/vgpu/limits";

  /** The resource whose limit sets the priority, as HAMi's webhook reads it. */
  static final String PRIORITY_RESOURCE = ResourceNames.NVIDIA.priority();

  /** Priority of a container that does not ask for one (HAMi-core's default). */
  static final int DEFAULT_PRIORITY = 1;

  static final String ENV_CORE_POLICY = "GPU_CORE_UTILIZATION_POLICY";

  /**
   * The limits of a container from its granted devices, the agent's config (core limit off, memory
   * scaling) and the container's own requests (priority resource, core policy env).
   *
   * @throws AllocationException naming the field and value of a malformed priority or policy
   */
  static ContainerLimits of(
      NodeAgentConfig config, Pod pod, Container container, List<ContainerDevice> devices)
      throws AllocationException {
    ImmutableList.Builder<Long> memory = ImmutableList.builder();
    ImmutableList.Builder<Integer> sm = ImmutableList.builder();
    for (int i = 0; i < devices.size(); i++) {
      ContainerDevice d = devices.get(i);
      if (d.usedmem() < 0 || d.usedcores() < 0 || d.usedcores() > 100) {
        throw new AllocationException(
            "container "
                + container.getName()
                + ": device "
                + i
                + " ("
                + d.uuid()
                + ") has usedmem="
                + d.usedmem()
                + " usedcores="
                + d.usedcores()
                + "; memory must be >= 0 MiB and cores within 0..100");
      }
      memory.add((long) d.usedmem() << 20);
      sm.add(d.usedcores());
    }
    return new ContainerLimits(
        memory.build(),
        sm.build(),
        corePolicy(config, pod, container),
        priority(container),
        config.memoryScaling() > 1);
  }

  /**
   * The priority from the container's {@code nvidia.com/priority} limit (else request), {@link
   * #DEFAULT_PRIORITY} when absent.
   */
  static int priority(Container container) throws AllocationException {
    String q = ContainerResources.of(container).get(PRIORITY_RESOURCE);
    if (q == null) {
      return DEFAULT_PRIORITY;
    }
    Decoded<Long> v = Quantities.parseInt64(PRIORITY_RESOURCE, q);
    if (v instanceof Decoded.Ok<Long> ok && (ok.value() == 0 || ok.value() == 1)) {
      return ok.value().intValue();
    }
    throw new AllocationException(
        "container "
            + container.getName()
            + ": "
            + PRIORITY_RESOURCE
            + "="
            + q
            + " must be 0 (high) or 1 (low)");
  }

  /**
   * The core policy: {@code disable} when the agent turns core limits off; else the container's
   * {@code GPU_CORE_UTILIZATION_POLICY} (set by the webhook from the cluster's policy), where
   * {@code disable} is honoured only when the agent allows a container to opt out of control, as
   * for {@code CUDA_DISABLE_CONTROL}; {@code force} only tightens and is always honoured.
   */
  static GpuCorePolicy corePolicy(NodeAgentConfig config, Pod pod, Container container)
      throws AllocationException {
    if (config.disableCoreLimit()) {
      return GpuCorePolicy.DISABLE;
    }
    GpuCorePolicy asked = GpuCorePolicy.DEFAULT;
    if (container.getEnv() != null) {
      for (EnvVar e : container.getEnv()) {
        if (ENV_CORE_POLICY.equals(e.getName()) && e.getValue() != null) {
          String value = e.getValue();
          asked =
              GpuCorePolicy.fromWire(value)
                  .orElseThrow(
                      () ->
                          new AllocationException(
                              "container "
                                  + container.getName()
                                  + ": env "
                                  + ENV_CORE_POLICY
                                  + "="
                                  + value
                                  + " is not default, force or disable"));
        }
      }
    }
    if (asked == GpuCorePolicy.DISABLE && !config.allowDisableControl()) {
      log.warn(
          "ignoring {}=disable: not allowed on this node pod={}/{} container={}",
          ENV_CORE_POLICY,
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          container.getName());
      return GpuCorePolicy.DEFAULT;
    }
    return asked;
  }

  /**
   * The file's text: one {@code key=value} per line, {@code sm_limit_<i>} only where it differs.
   */
  String render() {
    StringBuilder s = new StringBuilder();
    s.append("# written by the hami node agent at Allocate; mounted read-only\n");
    s.append("version=1\n");
    for (int i = 0; i < memoryLimitBytes.size(); i++) {
      s.append("memory_limit_").append(i).append('=').append(memoryLimitBytes.get(i)).append('\n');
    }
    int sm = smLimits.isEmpty() ? 0 : smLimits.get(0);
    s.append("sm_limit=").append(sm).append('\n');
    for (int i = 1; i < smLimits.size(); i++) {
      if (smLimits.get(i) != sm) {
        s.append("sm_limit_").append(i).append('=').append(smLimits.get(i)).append('\n');
      }
    }
    s.append("core_policy=").append(corePolicy.wire()).append('\n');
    s.append("priority=").append(priority).append('\n');
    s.append("oversubscribe=").append(oversubscribe).append('\n');
    return s.toString();
  }

  /**
   * Writes the file into {@code dir} at once: a temporary file, synced, mode 0444, then renamed
   * over {@link #FILE_NAME}, so a reader sees the old file or the whole new one. Kubelet keeps
   * Allocate's answer across restarts of the container and of the node, so the file must be on disk
   * before the answer is.
   */
  Path write(Path dir) throws IOException {
    Path tmp = dir.resolve("." + FILE_NAME + ".tmp");
    Files.deleteIfExists(tmp);
    try (FileChannel ch =
        FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(render().getBytes(StandardCharsets.UTF_8));
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("r--r--r--"));
    return Files.move(
        tmp,
        dir.resolve(FILE_NAME),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }
}
