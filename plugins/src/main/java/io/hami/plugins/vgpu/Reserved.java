package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.framework.api.StateData;

/**
 * The placement {@code vgpu} Reserve chose, kept for PreBind, and the index's reservation, kept for
 * Unreserve. Immutable.
 */
record Reserved(Placement placement, IndexReservation reservation) implements StateData {
  Reserved {
    requireNonNull(placement, "placement");
    requireNonNull(reservation, "reservation");
  }
}
