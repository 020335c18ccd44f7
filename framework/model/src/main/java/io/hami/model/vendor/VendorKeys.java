package io.hami.model.vendor;

/**
 * The annotation keys one vendor uses. A key the vendor does not have is empty.
 *
 * @param commonWord vendor keyword used in pod device records, e.g. {@code NVIDIA}
 * @param register node register annotation
 * @param handshake node handshake annotation
 * @param toAllocate pod annotation the node agent consumes
 * @param allocated pod annotation kept for accounting
 * @param useUuid pod annotation listing the only UUIDs allowed
 * @param noUseUuid pod annotation listing UUIDs to avoid
 * @param useType pod annotation listing allowed device types
 * @param noUseType pod annotation listing device types to avoid
 */
public record VendorKeys(
    String commonWord,
    String register,
    String handshake,
    String toAllocate,
    String allocated,
    String useUuid,
    String noUseUuid,
    String useType,
    String noUseType) {

  /** NVIDIA. */
  public static final VendorKeys NVIDIA =
      new VendorKeys(
          "NVIDIA",
          "hami.io/node-nvidia-register",
          "hami.io/node-handshake",
          "hami.io/vgpu-devices-to-allocate",
          "hami.io/vgpu-devices-allocated",
          "nvidia.com/use-gpuuuid",
          "nvidia.com/nouse-gpuuuid",
          "nvidia.com/use-gputype",
          "nvidia.com/nouse-gputype");

  /** Cambricon MLU (registers through node capacity, no handshake). */
  public static final VendorKeys CAMBRICON =
      new VendorKeys(
          "MLU",
          "",
          "",
          "hami.io/cambricon-mlu-devices-to-allocate",
          "hami.io/cambricon-mlu-devices-allocated",
          "cambricon.com/use-gpuuuid",
          "cambricon.com/nouse-gpuuuid",
          "cambricon.com/use-mlutype",
          "cambricon.com/nouse-mlutype");

  /** Hygon DCU. */
  public static final VendorKeys HYGON =
      new VendorKeys(
          "DCU",
          "hami.io/node-dcu-register",
          "hami.io/node-handshake-dcu",
          "hami.io/dcu-devices-to-allocate",
          "hami.io/dcu-devices-allocated",
          "hygon.com/use-gpuuuid",
          "hygon.com/nouse-gpuuuid",
          "hygon.com/use-dcutype",
          "hygon.com/nouse-dcutype");

  /** Iluvatar, keyed by the chip's common word (e.g. {@code BI-V150}). */
  public static VendorKeys iluvatar(String commonWord) {
    return new VendorKeys(
        commonWord,
        "hami.io/node-" + commonWord + "-register",
        "hami.io/node-handshake-" + commonWord,
        "hami.io/" + commonWord + "-devices-to-allocate",
        "hami.io/" + commonWord + "-devices-allocated",
        "hami.io/use-" + commonWord + "-uuid",
        "hami.io/no-use-" + commonWord + "-uuid",
        "",
        "");
  }

  /** Ascend, keyed by the chip's common word (e.g. {@code Ascend910B3}). */
  public static VendorKeys ascend(String commonWord) {
    return new VendorKeys(
        commonWord,
        "hami.io/node-register-" + commonWord,
        "hami.io/node-handshake-" + commonWord,
        "hami.io/" + commonWord + "-devices-to-allocate",
        "hami.io/" + commonWord + "-devices-allocated",
        "hami.io/use-" + commonWord + "-uuid",
        "hami.io/no-use-" + commonWord + "-uuid",
        "",
        "");
  }
}
