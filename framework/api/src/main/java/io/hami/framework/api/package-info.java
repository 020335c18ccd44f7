/**
 * The scheduling framework SPI: one small interface per extension point, results as values,
 * immutable node views and a handle to what the runtime provides.
 *
 * <p>Threading, for every extension point unless its javadoc says otherwise: a scheduling cycle
 * runs on a single scheduling thread, one pod at a time. {@link FilterPlugin#filter} and {@link
 * ScorePlugin#score} are fanned out over nodes on the framework's bounded parallelizer, so they may
 * run concurrently for different nodes of the same pod. Binding-cycle points ({@link
 * PreBindPlugin}, {@link BindPlugin}, {@link PostBindPlugin}) run on a binding thread, concurrently
 * with the scheduling cycle of later pods. A plugin never sees the same pod in two cycles at once.
 *
 * <p>Errors: an expected "no" is a {@link Status} value; a {@link RuntimeException} thrown from a
 * plugin is turned by the runtime into {@link Status#error(Throwable)} naming the plugin, and is
 * logged once there. Plugins should not catch, log and rethrow.
 */
@NullMarked
package io.hami.framework.api;

import org.jspecify.annotations.NullMarked;
