package io.hami.model.config;

import io.hami.model.resource.ResourceNames;

/**
 * The {@code hygon:} section.
 *
 * @param resourceNames count, memory and core names
 * @param memoryFactor multiplier of the memory resource (≥ 1)
 */
public record HygonConfig(ResourceNames resourceNames, int memoryFactor) {
  /** The defaults. */
  public static final HygonConfig DEFAULTS = new HygonConfig(ResourceNames.HYGON, 1);
}
