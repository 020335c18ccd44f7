package io.hami.framework.api;

/** The arguments of a plugin that takes none. */
public record NoArgs() implements PluginArgs {
  private static final NoArgs INSTANCE = new NoArgs();

  public static NoArgs instance() {
    return INSTANCE;
  }
}
