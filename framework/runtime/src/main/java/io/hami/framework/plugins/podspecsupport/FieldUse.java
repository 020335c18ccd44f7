package io.hami.framework.plugins.podspecsupport;

import static java.util.Objects.requireNonNull;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How this scheduler treats one field of a pod spec, container, resource requirements or volume, by
 * kube-scheduler v1.36's reading of it.
 *
 * @param <T> the type holding the field
 */
public sealed interface FieldUse<T> {

  /** Influences kube-scheduler's decision, and the named plugins of this scheduler implement it. */
  record Implemented<T>(String plugins) implements FieldUse<T> {
    public Implemented {
      requireNonNull(plugins, "plugins");
    }
  }

  /**
   * Influences kube-scheduler's decision, and this scheduler does not implement it: a pod that sets
   * it is refused rather than placed as if the field were not there.
   *
   * @param kubePlugin the kube-scheduler plugin that would evaluate it
   * @param value reads the field; a null, empty list or empty map counts as unset
   */
  record Refused<T>(String kubePlugin, Function<T, @Nullable Object> value) implements FieldUse<T> {
    public Refused {
      requireNonNull(kubePlugin, "kubePlugin");
      requireNonNull(value, "value");
    }
  }

  /**
   * Influences kube-scheduler's decision, and {@code plugin} of this scheduler implements it where
   * the profile enables that plugin; a pod that sets it is refused by a profile that does not.
   *
   * @param plugin the plugin that implements the field, named in the refusal
   * @param value reads the field; a null, empty list or empty map counts as unset
   */
  record NeedsPlugin<T>(String plugin, Function<T, @Nullable Object> value) implements FieldUse<T> {
    public NeedsPlugin {
      requireNonNull(plugin, "plugin");
      requireNonNull(value, "value");
    }
  }

  /** Does not influence kube-scheduler's decision; {@code why} says so for the reader. */
  record NoInfluence<T>(String why) implements FieldUse<T> {
    public NoInfluence {
      requireNonNull(why, "why");
    }
  }
}
