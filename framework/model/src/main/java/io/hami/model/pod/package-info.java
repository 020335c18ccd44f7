/**
 * Pod-side records: the per-container device lists the scheduler writes and the node agent
 * consumes, user selection annotations, scoring weights and usage collapse.
 */
@NullMarked
package io.hami.model.pod;

import org.jspecify.annotations.NullMarked;
