/**
 * The HAMi wire protocol between the scheduler and the nodes: typed records for every annotation
 * value and codecs that read and write them.
 *
 * <p>Every decoder returns a {@link io.hami.model.Decoded} value: either the typed result or a
 * {@link io.hami.model.ProtocolError} that names the field and the offending input. Decoders never
 * throw unchecked exceptions and run in time linear in the input length. Encoders produce the exact
 * bytes the reference implementation writes.
 */
@NullMarked
package io.hami.model;

import org.jspecify.annotations.NullMarked;
