package io.hami.model.config;

import io.hami.model.resource.ResourceNames;

/**
 * The {@code cambricon:} section.
 *
 * @param resourceNames count, memory (×256 MiB) and core names
 */
public record CambriconConfig(ResourceNames resourceNames) {
  /** The defaults. */
  public static final CambriconConfig DEFAULTS = new CambriconConfig(ResourceNames.CAMBRICON);
}
