/** The {@code hami scheduler} command and the plugin registry it runs with. */
@NullMarked
package io.hami.cmd.scheduler;

import org.jspecify.annotations.NullMarked;
