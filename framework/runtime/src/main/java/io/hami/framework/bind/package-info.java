/** Binding pods to nodes: the pods/binding subresource, or an in-memory cluster. */
@NullMarked
package io.hami.framework.bind;

import org.jspecify.annotations.NullMarked;
