/** The scheduler: profiles, the scheduling and binding cycles, the handle given to plugins. */
@NullMarked
package io.hami.framework.runtime;

import org.jspecify.annotations.NullMarked;
