/**
 * The node lock plugin: HAMi's {@code hami.io/mutex.lock}, taken before binding and released by the
 * node agent.
 */
@NullMarked
package io.hami.plugins.nodelock;

import org.jspecify.annotations.NullMarked;
