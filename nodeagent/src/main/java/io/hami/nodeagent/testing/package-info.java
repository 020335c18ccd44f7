@NullMarked
package io.hami.nodeagent.testing;

import org.jspecify.annotations.NullMarked;
