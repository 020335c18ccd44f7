/**
 * {@code hami explain}: where a pod went and why, or why it waits, read from the API alone (the
 * pod, its Events, the nodes it names and the pods holding their locks).
 */
@NullMarked
package io.hami.cmd.explain;

import org.jspecify.annotations.NullMarked;
