package io.hami.plugins.placement;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;
import java.util.Arrays;

/**
 * Arguments of the {@code placement} plugin.
 *
 * @param policy one of {@code random}, {@code dotprod}, {@code clustering}, {@code packing}, {@code
 *     bestfit} ({@code fgd} has its own plugin, which takes a target workload)
 * @param seed seed of Random-fit's draws
 */
public record PlacementArgs(String policy, long seed) implements PluginArgs {

  public static final PlacementArgs DEFAULTS = new PlacementArgs("bestfit", 42);

  @Override
  public void validate(FieldErrors errors) {
    if (policy == null || PaperPolicy.byName(policy).filter(p -> p != PaperPolicy.FGD).isEmpty()) {
      errors.invalid(
          "policy",
          policy,
          "must be one of "
              + String.join(
                  ", ",
                  Arrays.stream(PaperPolicy.values())
                      .filter(p -> p != PaperPolicy.FGD)
                      .map(PaperPolicy::policyName)
                      .toList())
              + " (use the fgd plugin for FGD)");
    }
  }
}
