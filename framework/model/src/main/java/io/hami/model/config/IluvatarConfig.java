package io.hami.model.config;

import io.hami.model.resource.ResourceNames;

/**
 * One entry of the {@code iluvatars:} list: a chip model.
 *
 * @param chipName chip as the driver reports it
 * @param commonWord vendor keyword used in annotations, e.g. {@code BI-V150}
 * @param resourceNames count, memory (×256 MiB) and core names
 */
public record IluvatarConfig(String chipName, String commonWord, ResourceNames resourceNames) {}
