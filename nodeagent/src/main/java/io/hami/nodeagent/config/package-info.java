@NullMarked
package io.hami.nodeagent.config;

import org.jspecify.annotations.NullMarked;
