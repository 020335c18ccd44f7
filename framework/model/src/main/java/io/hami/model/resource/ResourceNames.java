package io.hami.model.resource;

import java.util.ArrayList;
import java.util.List;

/**
 * The extended resource names a vendor's containers use. A name that a vendor does not have is
 * empty.
 *
 * @param count number of devices per container, e.g. {@code nvidia.com/gpu}
 * @param memory memory per device, e.g. {@code nvidia.com/gpumem}
 * @param memoryPercentage percent of a device's memory, e.g. {@code nvidia.com/gpumem-percentage}
 * @param core percent of a device's cores, e.g. {@code nvidia.com/gpucores}
 * @param priority task priority, e.g. {@code nvidia.com/priority}
 */
public record ResourceNames(
    String count, String memory, String memoryPercentage, String core, String priority) {

  /** NVIDIA's defaults. */
  public static final ResourceNames NVIDIA =
      new ResourceNames(
          "nvidia.com/gpu",
          "nvidia.com/gpumem",
          "nvidia.com/gpumem-percentage",
          "nvidia.com/gpucores",
          "nvidia.com/priority");

  /** Cambricon MLU defaults (memory in units of 256 MiB). */
  public static final ResourceNames CAMBRICON =
      new ResourceNames(
          "cambricon.com/vmlu",
          "cambricon.com/mlu.smlu.vmemory",
          "",
          "cambricon.com/mlu.smlu.vcore",
          "");

  /** Hygon DCU defaults. */
  public static final ResourceNames HYGON =
      new ResourceNames("hygon.com/dcunum", "hygon.com/dcumem", "", "hygon.com/dcucores", "");

  /**
   * Iluvatar names for a chip, e.g. {@code iluvatar.ai/BI-V150-vgpu}, {@code .vMem} (×256 MiB),
   * {@code .vCore}.
   */
  public static ResourceNames iluvatar(String chip) {
    String base = "iluvatar.ai/" + chip;
    return new ResourceNames(base + "-vgpu", base + ".vMem", "", base + ".vCore", "");
  }

  /**
   * Ascend names for a common word, e.g. {@code huawei.com/Ascend910B3} and {@code
   * huawei.com/Ascend910B3-memory}.
   */
  public static ResourceNames ascend(String commonWord) {
    return new ResourceNames(
        "huawei.com/" + commonWord, "huawei.com/" + commonWord + "-memory", "", "", "");
  }

  /** Every non-empty name. */
  public List<String> all() {
    var out = new ArrayList<String>(5);
    for (String s : new String[] {count, memory, memoryPercentage, core, priority}) {
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return List.copyOf(out);
  }
}
