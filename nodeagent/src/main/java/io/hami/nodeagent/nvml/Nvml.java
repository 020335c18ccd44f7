package io.hami.nodeagent.nvml;

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

  @Override
  void close();
}
