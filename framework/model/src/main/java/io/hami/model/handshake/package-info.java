/** The node handshake annotation values and the scheduler's health check state machine. */
@NullMarked
package io.hami.model.handshake;

import org.jspecify.annotations.NullMarked;
