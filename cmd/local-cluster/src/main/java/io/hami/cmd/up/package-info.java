/**
 * {@code hami up}: a local playground of a real control plane, fake GPU nodes, the hami-scheduler
 * and the admission webhook, in one process.
 */
@NullMarked
package io.hami.cmd.up;

import org.jspecify.annotations.NullMarked;
