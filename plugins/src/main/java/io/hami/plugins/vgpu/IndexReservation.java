package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A reservation {@link DeviceUsageIndex#reserve(String, String, String, PodUsage)} made, with the
 * accounting it replaced, so that {@link DeviceUsageIndex#unreserve(IndexReservation)} can count
 * that again.
 *
 * @param uid the pod
 * @param reserved what the reservation counts
 * @param replaced what the index counted for the pod before (an earlier attempt), or null
 */
public record IndexReservation(
    String uid, DeviceUsageIndex.Counted reserved, DeviceUsageIndex.@Nullable Counted replaced) {
  public IndexReservation {
    requireNonNull(uid, "uid");
    requireNonNull(reserved, "reserved");
  }
}
