package io.hami.model.pod;

/**
 * One device granted to one container, as written in the pod device annotations.
 *
 * @param uuid device UUID (for template MIG possibly with a {@code [t-s]} suffix)
 * @param type vendor keyword ({@code NVIDIA}, {@code MLU}, {@code DCU}, {@code Ascend910B3}...),
 *     not the model
 * @param usedmem memory granted in MiB
 * @param usedcores cores granted in percent
 */
public record ContainerDevice(String uuid, String type, int usedmem, int usedcores) {}
