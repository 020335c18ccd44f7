@NullMarked
package io.hami.framework.plugins.tainttoleration;

import org.jspecify.annotations.NullMarked;
