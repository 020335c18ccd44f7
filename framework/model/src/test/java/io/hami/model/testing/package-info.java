/**
 * GPU fixtures: fake devices, nodes that register them with the production codec, and pods that ask
 * for vGPU resources.
 */
@NullMarked
package io.hami.model.testing;

import org.jspecify.annotations.NullMarked;
