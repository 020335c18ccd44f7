package io.hami.framework.runtime;

import org.jspecify.annotations.Nullable;

/**
 * A built profile's own settings.
 *
 * @param name the scheduler name pods select
 * @param percentageOfNodesToScore the profile's value, or the global one
 * @param primaryScore the Score plugin whose score alone orders nodes, or null for the weighted sum
 */
record ProfileSettings(String name, int percentageOfNodesToScore, @Nullable String primaryScore) {}
