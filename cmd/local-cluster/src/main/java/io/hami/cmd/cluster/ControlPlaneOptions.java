package io.hami.cmd.cluster;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How to start a {@link ControlPlane}.
 *
 * @param binaries the executables to run
 * @param workDir where certificates, etcd data, the kubeconfig and logs go; created if missing
 * @param startupTimeout how long each component may take to become ready
 * @param keepWorkDir leave {@code workDir} in place on close (for debugging)
 * @param pkiBackend what makes the certificates
 */
public record ControlPlaneOptions(
    ControlPlaneBinaries binaries,
    Path workDir,
    Duration startupTimeout,
    boolean keepWorkDir,
    Pki.Backend pkiBackend) {
  /** System property that keeps work directories after the run. */
  public static final String KEEP_PROPERTY = "hami.e2e.keep";

  public ControlPlaneOptions {
    requireNonNull(binaries);
    requireNonNull(workDir);
    requireNonNull(pkiBackend);
    if (startupTimeout.isNegative() || startupTimeout.isZero()) {
      throw new IllegalArgumentException("startupTimeout must be positive, was " + startupTimeout);
    }
  }

  /**
   * Binaries from the environment or the build cache, a fresh directory under {@code
   * moduleDir/target/control-plane}, 120 s per component.
   */
  public static ControlPlaneOptions defaults(Path moduleDir) throws IOException {
    Path root = moduleDir.resolve("target/control-plane");
    Orphans.reap(root);
    Path work =
        root.resolve(
            Long.toString(System.currentTimeMillis(), 36) + "-" + ProcessHandle.current().pid());
    return new ControlPlaneOptions(
        ControlPlaneBinaries.resolve(moduleDir),
        work,
        Duration.ofMinutes(2),
        Boolean.getBoolean(KEEP_PROPERTY),
        Pki.Backend.detect());
  }

  public ControlPlaneOptions withWorkDir(Path dir) {
    return new ControlPlaneOptions(binaries, dir, startupTimeout, keepWorkDir, pkiBackend);
  }

  public ControlPlaneOptions withPkiBackend(Pki.Backend backend) {
    return new ControlPlaneOptions(binaries, workDir, startupTimeout, keepWorkDir, backend);
  }

  public ControlPlaneOptions withBinaries(ControlPlaneBinaries other) {
    return new ControlPlaneOptions(other, workDir, startupTimeout, keepWorkDir, pkiBackend);
  }

  public ControlPlaneOptions withStartupTimeout(Duration timeout) {
    return new ControlPlaneOptions(binaries, workDir, timeout, keepWorkDir, pkiBackend);
  }
}
