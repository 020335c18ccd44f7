package io.hami.cmd.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The control-plane executables: kube-apiserver and etcd, and optionally kube-controller-manager
 * and kube-scheduler (null when not known). {@code KUBE_APISERVER}, {@code ETCD}, {@code
 * KUBE_CONTROLLER_MANAGER} and {@code KUBE_SCHEDULER} name existing binaries; otherwise {@code
 * bin/build-control-plane.sh} builds the pinned versions once into {@code
 * ~/.cache/hami/control-plane} and reports their paths.
 */
public record ControlPlaneBinaries(
    Path kubeApiserver,
    Path etcd,
    @Nullable Path kubeControllerManager,
    @Nullable Path kubeScheduler) {
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(75);

  public ControlPlaneBinaries {
    requireExecutable("KUBE_APISERVER", kubeApiserver);
    requireExecutable("ETCD", etcd);
    if (kubeControllerManager != null) {
      requireExecutable("KUBE_CONTROLLER_MANAGER", kubeControllerManager);
    }
    if (kubeScheduler != null) {
      requireExecutable("KUBE_SCHEDULER", kubeScheduler);
    }
  }

  /** kube-apiserver and etcd alone. */
  public ControlPlaneBinaries(Path kubeApiserver, Path etcd) {
    this(kubeApiserver, etcd, null, null);
  }

  /**
   * Uses the environment's binaries when kube-apiserver and etcd are given (the controller-manager
   * and scheduler then only when given too), else builds or finds the cached ones.
   */
  public static ControlPlaneBinaries resolve(Path moduleDir) throws IOException {
    String apiserver = System.getenv("KUBE_APISERVER");
    String etcd = System.getenv("ETCD");
    if (notBlank(apiserver) && notBlank(etcd)) {
      return new ControlPlaneBinaries(
          Path.of(apiserver),
          Path.of(etcd),
          pathOrNull(System.getenv("KUBE_CONTROLLER_MANAGER")),
          pathOrNull(System.getenv("KUBE_SCHEDULER")));
    }
    Path script = moduleDir.resolve("bin/build-control-plane.sh");
    if (!Files.isRegularFile(script)) {
      throw new IOException("control-plane build script not found at " + script);
    }
    Commands.Result r = Commands.run(List.of("bash", script.toString()), moduleDir, BUILD_TIMEOUT);
    Map<String, String> vars = new HashMap<>();
    r.stdout()
        .lines()
        .filter(l -> l.indexOf('=') > 0)
        .forEach(l -> vars.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
    if (!vars.containsKey("KUBE_APISERVER") || !vars.containsKey("ETCD")) {
      throw new IOException(
          script
              + " did not report KUBE_APISERVER and ETCD; its output:\n"
              + r.stdout()
              + r.stderr());
    }
    return new ControlPlaneBinaries(
        Path.of(vars.get("KUBE_APISERVER")),
        Path.of(vars.get("ETCD")),
        pathOrNull(vars.get("KUBE_CONTROLLER_MANAGER")),
        pathOrNull(vars.get("KUBE_SCHEDULER")));
  }

  private static boolean notBlank(@Nullable String s) {
    return s != null && !s.isBlank();
  }

  private static @Nullable Path pathOrNull(@Nullable String s) {
    return notBlank(s) ? Path.of(s) : null;
  }

  private static void requireExecutable(String what, Path path) {
    if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
      throw new IllegalArgumentException(what + "=" + path + " is not an executable file");
    }
  }
}
