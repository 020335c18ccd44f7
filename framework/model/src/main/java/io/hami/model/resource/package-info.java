/** Extended resource names, Kubernetes quantities and per-container device requests. */
@NullMarked
package io.hami.model.resource;

import org.jspecify.annotations.NullMarked;
