/** The GPU plugins and their registrations. */
@NullMarked
package io.hami.plugins;

import org.jspecify.annotations.NullMarked;
