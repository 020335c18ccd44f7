package io.hami.cmd;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * Reports the project version and the commit the jar was built from, as the build wrote them into
 * {@code build.properties}; "unknown" for what the build could not tell.
 */
final class VersionProvider implements IVersionProvider {
  static final String RESOURCE = "build.properties";

  @Override
  public String[] getVersion() {
    return new String[] {line(read())};
  }

  static String line(Properties build) {
    return "hami "
        + build.getProperty("version", "unknown")
        + " (commit "
        + build.getProperty("commit", "unknown")
        + ")";
  }

  private static Properties read() {
    Properties p = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // An unreadable resource is reported as unknown, not as a failure of --version.
    }
    return p;
  }
}
