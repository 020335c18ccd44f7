/**
 * Fragmentation gradient descent (Weng et al., USENIX ATC'23): the fragmentation measure of a node
 * against a target workload, and the FGD placement score.
 *
 * <p>The math works on compact per-GPU free amounts in milli-GPU (0..1000) so that it serves both
 * the trace simulator and the scheduler plugin, where a device's free share is the smaller of its
 * free memory and free cores fractions. Nothing here allocates on the scoring path.
 */
@NullMarked
package io.hami.plugins.fgd;

import org.jspecify.annotations.NullMarked;
