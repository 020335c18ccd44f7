/** Built-in, GPU-agnostic plugins, one package each. */
@NullMarked
package io.hami.framework.plugins;

import org.jspecify.annotations.NullMarked;
