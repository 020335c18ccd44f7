/**
 * An in-memory cluster: nodes and pods held in maps and fed through the production cache, queue and
 * scheduling code, with an in-memory binder. For simulation, benchmarks and tests.
 */
@NullMarked
package io.hami.framework.local;

import org.jspecify.annotations.NullMarked;
