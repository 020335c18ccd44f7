/** How the project builds its Kubernetes clients. */
@NullMarked
package io.hami.model.client;

import org.jspecify.annotations.NullMarked;
