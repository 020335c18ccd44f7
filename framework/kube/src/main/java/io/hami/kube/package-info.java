/**
 * The Kubernetes helpers every module shares: how clients are built, the objects patches target,
 * annotation merge patches, bindings, pod phases and informer handlers.
 */
@NullMarked
package io.hami.kube;

import org.jspecify.annotations.NullMarked;
