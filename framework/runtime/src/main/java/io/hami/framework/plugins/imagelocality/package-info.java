/** The ImageLocality plugin: favours nodes that already hold the pod's container images. */
@NullMarked
package io.hami.framework.plugins.imagelocality;

import org.jspecify.annotations.NullMarked;
