@NullMarked
package io.hami.nodeagent.publish;

import org.jspecify.annotations.NullMarked;
