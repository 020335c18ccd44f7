/**
 * The cluster view: a read-only page under {@code /ui} on the scheduler's HTTP port showing nodes ×
 * GPUs with the pods on them, node lock and handshake state, pending pods with the reasons of their
 * last attempt, and the placement policy in force. Fed by the scheduler's cache and queue, read
 * from the HTTP threads through their own locks.
 */
@NullMarked
package io.hami.cmd.scheduler.ui;

import org.jspecify.annotations.NullMarked;
