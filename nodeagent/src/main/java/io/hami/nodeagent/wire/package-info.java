@NullMarked
package io.hami.nodeagent.wire;

import org.jspecify.annotations.NullMarked;
