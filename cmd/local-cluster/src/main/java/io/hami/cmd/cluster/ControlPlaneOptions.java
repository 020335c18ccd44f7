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
 * @param controllerManager also run kube-controller-manager (the binaries must name one)
 */
public record ControlPlaneOptions(
    ControlPlaneBinaries binaries,
    Path workDir,
    Duration startupTimeout,
    boolean keepWorkDir,
    Pki.Backend pkiBackend,
    boolean controllerManager) {
  /** System property that keeps work directories after the run. */
  public static final String KEEP_PROPERTY = "hami.e2e.keep";

  public ControlPlaneOptions {
    requireNonNull(binaries);
    requireNonNull(workDir);
    requireNonNull(pkiBackend);
    if (startupTimeout.isNegative() || startupTimeout.isZero()) {
      throw new IllegalArgumentException("startupTimeout must be positive, was " + startupTimeout);
    }
    if (controllerManager && binaries.kubeControllerManager() == null) {
      throw new IllegalArgumentException(
          "a controller-manager was asked for but no kube-controller-manager binary is known;"
              + " set KUBE_CONTROLLER_MANAGER or let bin/build-control-plane.sh build it");
    }
  }

  /** Options without a controller-manager. */
  public ControlPlaneOptions(
      ControlPlaneBinaries binaries,
      Path workDir,
      Duration startupTimeout,
      boolean keepWorkDir,
      Pki.Backend pkiBackend) {
    this(binaries, workDir, startupTimeout, keepWorkDir, pkiBackend, false);
  }

  /**
   * Binaries from the environment or the build cache, a fresh directory under {@code
   * moduleDir/target/control-plane}, 120 s per component, no controller-manager.
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
    return new ControlPlaneOptions(
        binaries, dir, startupTimeout, keepWorkDir, pkiBackend, controllerManager);
  }

  public ControlPlaneOptions withPkiBackend(Pki.Backend backend) {
    return new ControlPlaneOptions(
        binaries, workDir, startupTimeout, keepWorkDir, backend, controllerManager);
  }

  public ControlPlaneOptions withBinaries(ControlPlaneBinaries other) {
    return new ControlPlaneOptions(
        other, workDir, startupTimeout, keepWorkDir, pkiBackend, controllerManager);
  }

  public ControlPlaneOptions withStartupTimeout(Duration timeout) {
    return new ControlPlaneOptions(
        binaries, workDir, timeout, keepWorkDir, pkiBackend, controllerManager);
  }

  /**
   * With or without kube-controller-manager (PV binding, ResourceQuota status, namespaces, garbage
   * collection, ReplicaSets and Deployments, ServiceAccounts).
   */
  public ControlPlaneOptions withControllerManager(boolean run) {
    return new ControlPlaneOptions(binaries, workDir, startupTimeout, keepWorkDir, pkiBackend, run);
  }
}
