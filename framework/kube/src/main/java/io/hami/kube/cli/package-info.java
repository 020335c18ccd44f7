/** Command-line options shared by the commands that talk to a cluster. */
@NullMarked
package io.hami.kube.cli;

import org.jspecify.annotations.NullMarked;
