/**
 * Reads the per-container shared accounting regions: libvgpu's ({@code
 * libvgpu/include/vgpu/shared_region.h}) and HAMi-core's 1.2, told apart by {@link
 * io.hami.nodeagent.shm.RegionLayout}.
 */
@NullMarked
package io.hami.nodeagent.shm;

import org.jspecify.annotations.NullMarked;
