package io.hami.model.device;

/**
 * Where a MIG instance sits on the GPU, in memory slices.
 *
 * @param start first slice
 * @param size number of slices
 */
public record MigPlacement(int start, int size) {}
