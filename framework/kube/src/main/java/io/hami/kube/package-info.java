/** How the project builds its Kubernetes clients and the objects its patches target. */
@NullMarked
package io.hami.kube;

import org.jspecify.annotations.NullMarked;
