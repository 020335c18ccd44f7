/** Scores and filters nodes by whether a container's GPUs can share one NUMA node. */
@NullMarked
package io.hami.plugins.numa;

import org.jspecify.annotations.NullMarked;
