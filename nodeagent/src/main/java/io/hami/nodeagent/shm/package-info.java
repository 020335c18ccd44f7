/**
 * Reads libvgpu's per-container shared accounting region ({@code
 * libvgpu/include/vgpu/shared_region.h}).
 */
@NullMarked
package io.hami.nodeagent.shm;

import org.jspecify.annotations.NullMarked;
