package io.hami.framework.plugins.noderesources;

import com.google.common.collect.ImmutableList;
import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.util.List;

/**
 * Arguments of {@link NodeResourcesFitPlugin}.
 *
 * @param ignoredResources resource names Filter does not check; by default the per-device vGPU
 *     names (memory, cores, priority) that no node advertises and that device plugins and GPU
 *     plugins account for, as kube-scheduler's extender's managed resources with {@code
 *     ignoredByScheduler} do
 * @param ignoredResourceGroups resource name prefixes (the part before {@code /}) Filter does not
 *     check
 * @param scoringStrategy how nodes are ranked
 */
public record NodeResourcesFitArgs(
    List<String> ignoredResources,
    List<String> ignoredResourceGroups,
    ScoringStrategy scoringStrategy)
    implements PluginArgs {

  /** The vGPU request names of every supported vendor that nodes never advertise. */
  public static final ImmutableList<String> DEFAULT_IGNORED_RESOURCES =
      ImmutableList.of(
          "nvidia.com/gpumem",
          "nvidia.com/gpumem-percentage",
          "nvidia.com/gpucores",
          "nvidia.com/priority",
          "hygon.com/dcumem",
          "hygon.com/dcucores",
          "mthreads.com/sgpu-memory",
          "mthreads.com/sgpu-core",
          "metax-tech.com/vcore",
          "metax-tech.com/vmemory",
          "kunlunxin.com/vxpu-memory",
          "enflame.com/gcu-memory",
          "enflame.com/gcu-core");

  /** A resource and its weight in scoring. */
  public record ResourceWeight(String name, int weight) {}

  /**
   * How nodes are ranked.
   *
   * @param type {@code LeastAllocated} (spread) or {@code MostAllocated} (bin-pack)
   * @param resources the resources scored and their weights
   */
  public record ScoringStrategy(String type, List<ResourceWeight> resources) {
    public static final String LEAST_ALLOCATED = "LeastAllocated";
    public static final String MOST_ALLOCATED = "MostAllocated";
  }

  public NodeResourcesFitArgs {
    ignoredResources = ignoredResources == null ? List.of() : List.copyOf(ignoredResources);
    ignoredResourceGroups =
        ignoredResourceGroups == null ? List.of() : List.copyOf(ignoredResourceGroups);
  }

  public static NodeResourcesFitArgs defaults() {
    return new NodeResourcesFitArgs(
        DEFAULT_IGNORED_RESOURCES,
        List.of(),
        new ScoringStrategy(
            ScoringStrategy.LEAST_ALLOCATED,
            List.of(new ResourceWeight("cpu", 1), new ResourceWeight("memory", 1))));
  }

  @Override
  public void validate(FieldErrors errors) {
    for (int i = 0; i < ignoredResources.size(); i++) {
      String r = ignoredResources.get(i);
      if (r == null || r.isBlank()) {
        errors.invalid("ignoredResources[" + i + "]", r, "must not be empty");
      }
    }
    for (int i = 0; i < ignoredResourceGroups.size(); i++) {
      String g = ignoredResourceGroups.get(i);
      if (g == null || g.isBlank() || g.contains("/")) {
        errors.invalid(
            "ignoredResourceGroups[" + i + "]", g, "must be a non-empty prefix without '/'");
      }
    }
    if (scoringStrategy == null) {
      errors.required("scoringStrategy");
      return;
    }
    String type = scoringStrategy.type();
    if (!ScoringStrategy.LEAST_ALLOCATED.equals(type)
        && !ScoringStrategy.MOST_ALLOCATED.equals(type)) {
      errors.invalid("scoringStrategy.type", type, "must be one of LeastAllocated, MostAllocated");
    }
    List<ResourceWeight> rs = scoringStrategy.resources();
    if (rs == null || rs.isEmpty()) {
      errors.add("scoringStrategy.resources", "must list at least one resource");
      return;
    }
    for (int i = 0; i < rs.size(); i++) {
      ResourceWeight w = rs.get(i);
      if (w == null || w.name() == null || w.name().isBlank()) {
        errors.required("scoringStrategy.resources[" + i + "].name");
        continue;
      }
      if (w.weight() < 1 || w.weight() > 100) {
        errors.invalid(
            "scoringStrategy.resources[" + i + "].weight", w.weight(), "must be in 1..100");
      }
    }
  }
}
