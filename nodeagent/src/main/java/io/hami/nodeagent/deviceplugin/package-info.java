@NullMarked
package io.hami.nodeagent.deviceplugin;

import org.jspecify.annotations.NullMarked;
