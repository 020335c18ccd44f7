@NullMarked
package io.hami.framework.plugins.prioritysort;

import org.jspecify.annotations.NullMarked;
