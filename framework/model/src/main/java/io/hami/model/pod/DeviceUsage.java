package io.hami.model.pod;

/**
 * What one pod occupies on one device.
 *
 * @param usedmem MiB
 * @param usedcores percent
 * @param slots share slots (how many of the device's {@code count} the pod takes)
 */
public record DeviceUsage(int usedmem, int usedcores, int slots) {}
