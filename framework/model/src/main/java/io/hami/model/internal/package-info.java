/** Parsing helpers shared by the codecs; not part of the supported API. */
@NullMarked
package io.hami.model.internal;

import org.jspecify.annotations.NullMarked;
