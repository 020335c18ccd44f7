/**
 * The PodSpecSupport plugin and the table of pod spec fields it is built on: which fields this
 * scheduler implements, which it refuses, and which do not influence scheduling.
 */
@NullMarked
package io.hami.framework.plugins.podspecsupport;

import org.jspecify.annotations.NullMarked;
