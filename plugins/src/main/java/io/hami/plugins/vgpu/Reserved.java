package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import io.hami.framework.api.StateData;

/** The placement {@code vgpu} Reserve chose, kept for PreBind. Immutable. */
record Reserved(Placement placement) implements StateData {
  Reserved {
    requireNonNull(placement, "placement");
  }
}
