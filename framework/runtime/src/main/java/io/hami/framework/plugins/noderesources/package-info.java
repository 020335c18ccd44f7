@NullMarked
package io.hami.framework.plugins.noderesources;

import org.jspecify.annotations.NullMarked;
