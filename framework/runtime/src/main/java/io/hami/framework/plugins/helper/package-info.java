/** Helpers shared by the built-in plugins (kube-scheduler's plugins/helper). */
@NullMarked
package io.hami.framework.plugins.helper;

import org.jspecify.annotations.NullMarked;
