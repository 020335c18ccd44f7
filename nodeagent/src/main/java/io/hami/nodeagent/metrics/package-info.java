@NullMarked
package io.hami.nodeagent.metrics;

import org.jspecify.annotations.NullMarked;
