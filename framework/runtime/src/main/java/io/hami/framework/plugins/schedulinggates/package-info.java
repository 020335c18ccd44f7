/** The SchedulingGates plugin: keeps pods with {@code spec.schedulingGates} out of the queue. */
@NullMarked
package io.hami.framework.plugins.schedulinggates;

import org.jspecify.annotations.NullMarked;
