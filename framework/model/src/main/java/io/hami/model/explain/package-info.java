/**
 * The scheduler's record of a pod's last scheduling attempt ({@code hami.io/schedule-explain}),
 * which {@code hami explain} reads.
 */
@NullMarked
package io.hami.model.explain;

import org.jspecify.annotations.NullMarked;
