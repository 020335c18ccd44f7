@NullMarked
package io.hami.framework.plugins.defaultbinder;

import org.jspecify.annotations.NullMarked;
