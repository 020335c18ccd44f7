@NullMarked
package io.hami.framework.plugins.nodeaffinity;

import org.jspecify.annotations.NullMarked;
