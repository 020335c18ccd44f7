/** The GPU plugins' Prometheus metrics, registered once per scheduler registry. */
@NullMarked
package io.hami.plugins.metrics;

import org.jspecify.annotations.NullMarked;
