/** The {@code hami webhook} command: the admission webhook on its own. */
@NullMarked
package io.hami.cmd.webhook;

import org.jspecify.annotations.NullMarked;
