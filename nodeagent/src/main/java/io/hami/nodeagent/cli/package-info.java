@NullMarked
package io.hami.nodeagent.cli;

import org.jspecify.annotations.NullMarked;
