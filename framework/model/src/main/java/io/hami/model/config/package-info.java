/**
 * The device config file shared by the scheduler and the node agent: parsing, defaults, validation.
 */
@NullMarked
package io.hami.model.config;

import org.jspecify.annotations.NullMarked;
