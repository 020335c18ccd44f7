/**
 * The vendor SPI: one small interface per protocol concern (annotation keys, node register,
 * requests, allocation annotations) and the built-in vendors.
 */
@NullMarked
package io.hami.model.vendor;

import org.jspecify.annotations.NullMarked;
