package io.hami.plugins.fgd;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;

/**
 * Arguments of the {@code fgd} plugin.
 *
 * @param targetWorkloadFile a pod list in the openb CSV format ({@code cpu_milli, num_gpu,
 *     gpu_milli} and optionally {@code gpu_spec}) whose popular shapes are the target workload;
 *     empty to learn it from the pods seen recently
 * @param window how many recent pods make up the learned workload
 * @param refreshEvery how many new pods between recomputations of the learned workload
 * @param coverage share of pods the target's shapes cover (the paper uses 0.95)
 */
public record FgdArgs(String targetWorkloadFile, int window, int refreshEvery, double coverage)
    implements PluginArgs {

  public static final FgdArgs DEFAULTS =
      new FgdArgs("", 2000, 100, TargetWorkload.DEFAULT_COVERAGE);

  @Override
  public void validate(FieldErrors errors) {
    if (targetWorkloadFile == null) {
      errors.required("targetWorkloadFile");
    }
    if (window < 1) {
      errors.invalid("window", window, "must be >= 1");
    }
    if (refreshEvery < 1) {
      errors.invalid("refreshEvery", refreshEvery, "must be >= 1");
    }
    if (!(coverage > 0 && coverage <= 1)) {
      errors.invalid("coverage", coverage, "must be in (0, 1]");
    }
  }
}
