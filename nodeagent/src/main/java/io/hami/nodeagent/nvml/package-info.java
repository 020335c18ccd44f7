@NullMarked
package io.hami.nodeagent.nvml;

import org.jspecify.annotations.NullMarked;
