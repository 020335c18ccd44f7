package io.hami.nodeagent.nvml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Reads a PCI device's NUMA node from sysfs ({@code /sys/bus/pci/devices/<bus id>/numa_node}). */
public final class SysfsNuma {
  private final Path pciDevices;

  public SysfsNuma(Path pciDevices) {
    this.pciDevices = pciDevices;
  }

  public static SysfsNuma system() {
    return new SysfsNuma(Path.of("/sys/bus/pci/devices"));
  }

  /** The NUMA node, or 0 when unknown or negative (single-node machines report -1). */
  public int numaNode(String nvmlBusId) {
    Path file = pciDevices.resolve(sysfsBusId(nvmlBusId)).resolve("numa_node");
    try {
      int node = Integer.parseInt(Files.readString(file, StandardCharsets.US_ASCII).trim());
      return Math.max(node, 0);
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  /** NVML prints an 8-digit domain ({@code 00000000:3B:00.0}); sysfs uses 4 in lower case. */
  static String sysfsBusId(String nvmlBusId) {
    String id = nvmlBusId.trim().toLowerCase(Locale.ROOT);
    int colon = id.indexOf(':');
    if (colon > 4) {
      id = id.substring(colon - 4);
    }
    return id;
  }
}
