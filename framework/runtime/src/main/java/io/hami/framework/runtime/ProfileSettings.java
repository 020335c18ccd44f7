package io.hami.framework.runtime;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * A built profile's own settings.
 *
 * @param name the scheduler name pods select
 * @param percentageOfNodesToScore the profile's value, or the global one
 * @param primaryScores the Score plugins whose scores order nodes, first deciding; empty for the
 *     weighted sum
 */
record ProfileSettings(String name, int percentageOfNodesToScore, List<String> primaryScores) {
  ProfileSettings {
    primaryScores = ImmutableList.copyOf(primaryScores);
  }
}
