/** The {@code hami bench} commands: benchmarks that print their figures. */
@NullMarked
package io.hami.cmd.bench;

import org.jspecify.annotations.NullMarked;
