/**
 * The {@code hami.io/schedule-explain} record of a failed attempt, left for {@code hami explain}.
 */
@NullMarked
package io.hami.plugins.explain;

import org.jspecify.annotations.NullMarked;
