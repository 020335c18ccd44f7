/** The {@code hami simulate} command: trace-driven comparison of placement policies. */
@NullMarked
package io.hami.cmd.simulate;

import org.jspecify.annotations.NullMarked;
