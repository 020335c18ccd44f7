@NullMarked
package io.hami.framework.plugins.nodeports;

import org.jspecify.annotations.NullMarked;
