/**
 * Chooses multi-GPU sets by the pair scores a node publishes in {@code hami.io/node-nvidia-score}.
 */
@NullMarked
package io.hami.plugins.topology;

import org.jspecify.annotations.NullMarked;
