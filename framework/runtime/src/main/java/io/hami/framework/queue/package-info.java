/** The scheduling queue: active, backoff and unschedulable pods, requeued by cluster events. */
@NullMarked
package io.hami.framework.queue;

import org.jspecify.annotations.NullMarked;
