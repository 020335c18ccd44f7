package io.hami.nodeagent.nvml;

import io.hami.model.device.MigPlacement;
import java.util.List;

/**
 * The part of NVML the node agent uses. Implementations: {@link JniNvml} (the driver), {@link
 * FakeNvml} (tests and {@code --fake-gpus}) and {@link NullNvml} (no GPUs). Methods may be called
 * from several threads.
 */
public interface Nvml extends AutoCloseable {

  /** A short description for logs, e.g. the driver version. */
  String describe();

  /** All GPUs, in NVML index order. */
  List<GpuInfo> devices() throws NvmlException;

  /** The PCIe link between two GPUs, by NVML index. */
  PcieLink pcieLink(int a, int b) throws NvmlException;

  /** Active NVLinks from GPU {@code from} that end at GPU {@code to}. */
  int nvLinks(int from, int to) throws NvmlException;

  /** Registers for XID critical errors on all GPUs. */
  XidWatch watchXids() throws NvmlException;

  /**
   * The GPU instance profiles GPU {@code index} offers in MIG mode, in NVML profile order; empty
   * when the GPU is not MIG-capable or MIG mode is off.
   */
  default List<MigProfileInfo> migProfiles(int index) throws NvmlException {
    return List.of();
  }

  /** The GPU instances on GPU {@code index} (with their compute instances). */
  default List<MigInstance> migInstances(int index) throws NvmlException {
    return List.of();
  }

  /**
   * Creates a GPU instance of {@code profileId} at {@code placement} on GPU {@code index} and one
   * compute instance spanning it. Fails with the NVML code when the placement is taken or not legal
   * for the profile; nothing is left behind on failure.
   */
  default MigInstance createMigInstance(int index, int profileId, MigPlacement placement)
      throws NvmlException {
    throw new NvmlException(
        NvmlException.FUNCTION_NOT_FOUND, "MIG instances are not supported by " + describe());
  }

  /**
   * Destroys a compute instance (unless {@code computeInstanceId} is -1) and then its GPU instance.
   */
  default void destroyMigInstance(int index, int gpuInstanceId, int computeInstanceId)
      throws NvmlException {
    throw new NvmlException(
        NvmlException.FUNCTION_NOT_FOUND, "MIG instances are not supported by " + describe());
  }

  /**
   * The per-process utilisation samples of GPU {@code index} newer than {@code sinceMicros} (CPU
   * time, microseconds since the epoch; 0 for every buffered sample); empty when no process ran.
   * Fails with {@link NvmlException#NOT_SUPPORTED} or {@link NvmlException#FUNCTION_NOT_FOUND}
   * where the GPU or driver cannot tell.
   */
  default List<ProcessUtilization> processUtilization(int index, long sinceMicros)
      throws NvmlException {
    throw new NvmlException(
        NvmlException.NOT_SUPPORTED, "per-process utilisation is not supported by " + describe());
  }

  @Override
  void close();
}
