/** The scheduler cache: nodes and pods from informers, assumed pods, incremental snapshots. */
@NullMarked
package io.hami.framework.cache;

import org.jspecify.annotations.NullMarked;
