@NullMarked
package io.hami.nodeagent.health;

import org.jspecify.annotations.NullMarked;
