package io.hami.framework.runtime;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginArgs;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.ProfileAware;
import io.hami.framework.config.DefaultPlugins;
import io.hami.framework.config.ExtensionPoint;
import io.hami.framework.config.PluginRef;
import io.hami.framework.config.PluginSet;
import io.hami.framework.config.ProfileConfig;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Assembles a profile's plugins from its configuration and the registry: which plugins run at each
 * extension point and in what order, their score weights, and the checks that a profile is
 * complete. Runs once per profile at start-up; {@link FrameworkRuntime} runs the points.
 */
final class ProfileAssembly {
  private ProfileAssembly() {}

  /**
   * Builds a profile: resolves which plugins run at each point (defaults, then multiPoint, then
   * per-point lists), creates each plugin once with its arguments and checks that every plugin
   * named at a point implements it. Adds an error per problem to {@code errors} and returns null if
   * there was any.
   */
  static @Nullable FrameworkRuntime build(
      ProfileConfig profile,
      int globalPercentage,
      Registry registry,
      FrameworkHandle handle,
      SchedulerMetrics metrics,
      FieldErrors errors) {
    int before = errors.messages().size();
    Map<String, PluginRef> multi = multiPoint(profile, registry);
    Map<String, Plugin> instances = createPlugins(profile, registry, handle, multi, errors);
    Map<ExtensionPoint, List<Plugin>> byPoint = new EnumMap<>(ExtensionPoint.class);
    Map<String, Integer> weights = new LinkedHashMap<>();
    for (ExtensionPoint point : ExtensionPoint.values()) {
      byPoint.put(point, pluginsAt(point, profile, multi, instances, weights, errors));
    }
    checkRequiredPoints(byPoint, errors);
    checkPrimaryScore(profile, byPoint, errors);
    if (errors.messages().size() != before) {
      // The profile is not built: what its plugins started must not outlive it.
      PluginCloser.closeAll(profile.schedulerName(), instances.values());
      return null;
    }
    tellProfile(byPoint);
    int pct =
        profile.percentageOfNodesToScore() != null
            ? profile.percentageOfNodesToScore()
            : globalPercentage;
    return new FrameworkRuntime(
        new ProfileSettings(profile.schedulerName(), pct, profile.primaryScores()),
        byPoint,
        weights,
        instances,
        metrics);
  }

  /** Each primary score must name a plugin that runs at Score in this profile. */
  private static void checkPrimaryScore(
      ProfileConfig profile, Map<ExtensionPoint, List<Plugin>> byPoint, FieldErrors errors) {
    List<String> scoring =
        byPoint.getOrDefault(ExtensionPoint.SCORE, List.of()).stream().map(Plugin::name).toList();
    for (String primary : profile.primaryScores()) {
      if (!scoring.contains(primary)) {
        errors.invalid(
            "primaryScore", primary, "not a Score plugin enabled in this profile " + scoring);
      }
    }
  }

  /** Tells each {@link ProfileAware} plugin which plugins run in its profile. */
  private static void tellProfile(Map<ExtensionPoint, List<Plugin>> byPoint) {
    Set<String> enabled = new LinkedHashSet<>();
    Set<ProfileAware> aware = new LinkedHashSet<>();
    for (List<Plugin> ps : byPoint.values()) {
      for (Plugin p : ps) {
        enabled.add(p.name());
        if (p instanceof ProfileAware a) {
          aware.add(a);
        }
      }
    }
    Set<String> names = Set.copyOf(enabled);
    for (ProfileAware a : aware) {
      a.profileBuilt(names);
    }
  }

  /** The multi-point list: defaults not disabled, then the profile's own. */
  private static Map<String, PluginRef> multiPoint(ProfileConfig profile, Registry registry) {
    Map<String, PluginRef> multi = new LinkedHashMap<>();
    PluginSet mp = profile.multiPoint();
    for (PluginRef d : DefaultPlugins.MULTI_POINT) {
      if (registry.contains(d.name()) && !mp.disables(d.name())) {
        multi.put(d.name(), d);
      }
    }
    for (PluginRef r : mp.enabled()) {
      multi.remove(r.name());
      multi.put(r.name(), r);
    }
    return multi;
  }

  /** Creates each plugin the profile names, once, with its arguments. */
  private static Map<String, Plugin> createPlugins(
      ProfileConfig profile,
      Registry registry,
      FrameworkHandle handle,
      Map<String, PluginRef> multi,
      FieldErrors errors) {
    Set<String> needed = new HashSet<>(multi.keySet());
    for (ExtensionPoint p : ExtensionPoint.values()) {
      for (PluginRef r : profile.at(p).enabled()) {
        needed.add(r.name());
      }
    }
    Map<String, Plugin> instances = new LinkedHashMap<>();
    for (String name : orderedNames(multi, profile, needed)) {
      PluginRegistration<?> reg = registry.get(name).orElse(null);
      if (reg == null) {
        errors.invalid("plugins", name, "no plugin registered with this name");
        continue;
      }
      PluginArgs args = profile.pluginArgs().getOrDefault(name, reg.defaultArgs());
      try {
        instances.put(name, reg.create(args, handle));
      } catch (RuntimeException e) {
        errors.add("pluginConfig[" + name + "]", "cannot create plugin: " + e.getMessage());
      }
    }
    return instances;
  }

  /**
   * The plugins that run at {@code point}, in order: the multi-point ones that implement it and are
   * not disabled there, then the point's own list. Records score weights into {@code weights}.
   */
  private static List<Plugin> pluginsAt(
      ExtensionPoint point,
      ProfileConfig profile,
      Map<String, PluginRef> multi,
      Map<String, Plugin> instances,
      Map<String, Integer> weights,
      FieldErrors errors) {
    PluginSet set = profile.at(point);
    Map<String, PluginRef> list = new LinkedHashMap<>();
    for (PluginRef r : multi.values()) {
      Plugin p = instances.get(r.name());
      if (p != null && point.isImplementedBy(p) && !set.disables(r.name())) {
        list.put(r.name(), r);
      }
    }
    for (int i = 0; i < set.enabled().size(); i++) {
      PluginRef r = set.enabled().get(i);
      Plugin p = instances.get(r.name());
      if (p == null) {
        continue;
      }
      if (!point.isImplementedBy(p)) {
        errors.invalid(
            "plugins." + point.yamlName() + ".enabled[" + i + "].name",
            r.name(),
            "plugin does not implement " + point.type().getSimpleName());
        continue;
      }
      list.remove(r.name());
      list.put(r.name(), r);
    }
    List<Plugin> ps = new ArrayList<>();
    for (PluginRef r : list.values()) {
      ps.add(instances.get(r.name()));
      if (point == ExtensionPoint.SCORE) {
        PluginRef m = multi.get(r.name());
        Integer w = r.weight() != null ? r.weight() : m != null ? m.weight() : null;
        weights.put(r.name(), w == null ? 1 : w);
      }
    }
    return ps;
  }

  private static void checkRequiredPoints(
      Map<ExtensionPoint, List<Plugin>> byPoint, FieldErrors errors) {
    List<Plugin> queueSort = byPoint.getOrDefault(ExtensionPoint.QUEUE_SORT, List.of());
    if (queueSort.size() != 1) {
      errors.add(
          "plugins.queueSort",
          "exactly one QueueSort plugin must be enabled, found "
              + queueSort.stream().map(Plugin::name).toList());
    }
    if (byPoint.getOrDefault(ExtensionPoint.BIND, List.of()).isEmpty()) {
      errors.add("plugins.bind", "at least one Bind plugin must be enabled");
    }
  }

  private static List<String> orderedNames(
      Map<String, PluginRef> multi, ProfileConfig profile, Set<String> needed) {
    List<String> out = new ArrayList<>(multi.keySet());
    for (ExtensionPoint p : ExtensionPoint.values()) {
      for (PluginRef r : profile.at(p).enabled()) {
        if (!out.contains(r.name())) {
          out.add(r.name());
        }
      }
    }
    out.retainAll(needed);
    return out;
  }
}
