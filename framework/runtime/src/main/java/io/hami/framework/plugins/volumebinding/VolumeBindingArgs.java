package io.hami.framework.plugins.volumebinding;

import io.hami.framework.api.FieldErrors;
import io.hami.framework.api.PluginArgs;

/**
 * Arguments of {@link VolumeBindingPlugin}.
 *
 * @param bindTimeoutSeconds how long PreBind waits for the claims it bound or asked to provision to
 *     become Bound before it fails the binding; 0 fails at once unless they already are
 */
public record VolumeBindingArgs(long bindTimeoutSeconds) implements PluginArgs {
  public static final long DEFAULT_BIND_TIMEOUT_SECONDS = 600;

  public static VolumeBindingArgs defaults() {
    return new VolumeBindingArgs(DEFAULT_BIND_TIMEOUT_SECONDS);
  }

  @Override
  public void validate(FieldErrors errors) {
    if (bindTimeoutSeconds < 0) {
      errors.invalid("bindTimeoutSeconds", bindTimeoutSeconds, "must not be negative");
    }
  }
}
