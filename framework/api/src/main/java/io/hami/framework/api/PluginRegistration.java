package io.hami.framework.api;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.function.Function;

/**
 * A named plugin with its argument type, default arguments and factory; what a registry holds.
 *
 * @param name the name used in configuration; unique in a registry
 * @param argsType the record type that {@code pluginConfig[].args} decodes into
 * @param defaultArgs the arguments used for fields the configuration leaves out
 * @param factory creates the plugin
 * @param <A> the arguments type
 */
public record PluginRegistration<A extends PluginArgs>(
    String name, Class<A> argsType, A defaultArgs, PluginFactory<A> factory) {

  public PluginRegistration {
    requireNonNull(name, "name");
    checkArgument(!name.isBlank(), "plugin name must not be blank");
    requireNonNull(argsType, "argsType");
    requireNonNull(defaultArgs, "defaultArgs");
    requireNonNull(factory, "factory");
    checkArgument(
        argsType.isInstance(defaultArgs),
        "default args of %s are a %s, not a %s",
        name,
        defaultArgs.getClass().getName(),
        argsType.getName());
  }

  /** Registers a plugin without arguments. */
  public static PluginRegistration<NoArgs> of(String name, Function<FrameworkHandle, Plugin> f) {
    return new PluginRegistration<>(
        name, NoArgs.class, NoArgs.instance(), (args, handle) -> f.apply(handle));
  }

  /** Registers a plugin with typed arguments. */
  public static <A extends PluginArgs> PluginRegistration<A> of(
      String name, Class<A> argsType, A defaultArgs, PluginFactory<A> factory) {
    return new PluginRegistration<>(name, argsType, defaultArgs, factory);
  }

  /** Creates the plugin, checking that it reports the registered name. */
  public Plugin create(PluginArgs args, FrameworkHandle handle) {
    Plugin p = factory.create(argsType.cast(args), handle);
    checkArgument(name.equals(p.name()), "plugin registered as %s calls itself %s", name, p.name());
    return p;
  }
}
