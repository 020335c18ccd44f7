package io.hami.framework.plugins.interpodaffinity;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A pod as terms see it.
 *
 * @param namespace its namespace
 * @param labels its labels
 * @param nsLabels its namespace's labels; null for terms whose namespace selectors are resolved
 */
record Target(
    String namespace, Map<String, String> labels, @Nullable Map<String, String> nsLabels) {}
