package io.hami.framework.config;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.hami.framework.api.PluginArgs;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One scheduling profile: pods whose {@code spec.schedulerName} equals {@link #schedulerName()} are
 * scheduled with these plugins.
 *
 * @param schedulerName the name pods select
 * @param percentageOfNodesToScore overrides the global value when not null
 * @param multiPoint plugins enabled at every point they implement (after the defaults)
 * @param points per-point additions and removals
 * @param pluginArgs validated arguments by plugin name; plugins not listed use their defaults
 * @param primaryScores the Score plugins whose scores alone order the feasible nodes, the first
 *     deciding and each next one only breaking the ties of those before it; the weighted sum of
 *     every Score plugin breaks the remaining ties. Empty: the weighted sum decides, as in
 *     kube-scheduler.
 */
public record ProfileConfig(
    String schedulerName,
    @Nullable Integer percentageOfNodesToScore,
    PluginSet multiPoint,
    Map<ExtensionPoint, PluginSet> points,
    Map<String, PluginArgs> pluginArgs,
    List<String> primaryScores) {

  public ProfileConfig {
    requireNonNull(schedulerName, "schedulerName");
    requireNonNull(multiPoint, "multiPoint");
    points = ImmutableMap.copyOf(points);
    pluginArgs = ImmutableMap.copyOf(pluginArgs);
    primaryScores = ImmutableList.copyOf(primaryScores);
  }

  /** A profile in which the weighted sum of every Score plugin decides. */
  public ProfileConfig(
      String schedulerName,
      @Nullable Integer percentageOfNodesToScore,
      PluginSet multiPoint,
      Map<ExtensionPoint, PluginSet> points,
      Map<String, PluginArgs> pluginArgs) {
    this(schedulerName, percentageOfNodesToScore, multiPoint, points, pluginArgs, List.of());
  }

  /** Returns the plugin set configured at {@code point}, empty when none. */
  public PluginSet at(ExtensionPoint point) {
    return points.getOrDefault(point, PluginSet.empty());
  }

  /** A profile with default plugins only. */
  public static ProfileConfig defaults(String schedulerName) {
    return new ProfileConfig(schedulerName, null, PluginSet.empty(), Map.of(), Map.of());
  }
}
