package io.hami.framework.plugins.balancedallocation;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Arguments of {@link NodeResourcesBalancedAllocationPlugin}, as kube-scheduler's
 * NodeResourcesBalancedAllocationArgs.
 *
 * @param resources the resources whose balance is scored; each weight must be 1, as kube-scheduler
 *     requires (the score is a standard deviation, which has no use for weights)
 */
public record NodeResourcesBalancedAllocationArgs(List<ResourceSpec> resources)
    implements PluginArgs {

  /** A resource and its weight. */
  public record ResourceSpec(@Nullable String name, int weight) {}

  public NodeResourcesBalancedAllocationArgs {
    // Not List.copyOf: a null entry from the configuration must reach validate(), not throw here.
    resources =
        resources == null
            ? List.of(new ResourceSpec("cpu", 1), new ResourceSpec("memory", 1))
            : Collections.unmodifiableList(new ArrayList<>(resources));
  }

  /** cpu and memory, weight 1 each. */
  public static NodeResourcesBalancedAllocationArgs defaults() {
    return new NodeResourcesBalancedAllocationArgs(
        List.of(new ResourceSpec("cpu", 1), new ResourceSpec("memory", 1)));
  }

  @Override
  public void validate(FieldErrors errors) {
    if (resources.isEmpty()) {
      errors.add("resources", "must list at least one resource");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < resources.size(); i++) {
      ResourceSpec r = resources.get(i);
      String at = "resources[" + i + "]";
      if (r == null || r.name() == null || r.name().isBlank()) {
        errors.required(at + ".name");
        continue;
      }
      if (!seen.add(r.name())) {
        errors.invalid(at + ".name", r.name(), "duplicate resource");
      }
      if (r.weight() != 1) {
        errors.invalid(at + ".weight", r.weight(), "must be 1");
      }
    }
  }
}
