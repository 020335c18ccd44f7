@NullMarked
package io.hami.framework.plugins.nodename;

import org.jspecify.annotations.NullMarked;
