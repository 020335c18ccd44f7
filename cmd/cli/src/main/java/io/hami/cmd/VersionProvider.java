package io.hami.cmd;

import picocli.CommandLine.IVersionProvider;

/** Reports the version from the jar manifest, or "dev" when run from classes. */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = HamiCommand.class.getPackage().getImplementationVersion();
    return new String[] {"hami " + (v == null ? "dev" : v)};
  }
}
