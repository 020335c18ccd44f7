package io.hami.plugins.numa;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;

/**
 * Arguments of the {@code numa} plugin.
 *
 * @param policy {@link AlignmentPolicy} name: {@code BestEffort} (score only, the default), {@code
 *     SingleNumaNode} (also reject nodes where a multi-GPU container cannot stay on one NUMA node,
 *     for every pod), or {@code None}
 */
public record NumaArgs(String policy) implements PluginArgs {
  public static final NumaArgs DEFAULTS = new NumaArgs("BestEffort");

  @Override
  public void validate(FieldErrors errors) {
    if (AlignmentPolicy.parse(policy) == null) {
      errors.invalid("policy", policy, "must be one of BestEffort, SingleNumaNode, None");
    }
  }
}
