@NullMarked
package io.hami.framework.plugins.nodeunschedulable;

import org.jspecify.annotations.NullMarked;
