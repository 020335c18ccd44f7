/** Values of the node lock annotations. */
@NullMarked
package io.hami.model.lock;

import org.jspecify.annotations.NullMarked;
