/**
 * The vGPU plugin: per-device fit, scoring and binding annotations, plus the shared device usage
 * index.
 */
@NullMarked
package io.hami.plugins.vgpu;

import org.jspecify.annotations.NullMarked;
