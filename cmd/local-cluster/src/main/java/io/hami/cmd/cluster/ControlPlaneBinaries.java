package io.hami.cmd.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kube-apiserver and etcd executables. {@code KUBE_APISERVER} and {@code ETCD} name existing
 * binaries; otherwise {@code bin/build-control-plane.sh} builds the pinned versions once into
 * {@code ~/.cache/hami/control-plane} and reports their paths.
 */
public record ControlPlaneBinaries(Path kubeApiserver, Path etcd) {
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(75);

  public ControlPlaneBinaries {
    requireExecutable("KUBE_APISERVER", kubeApiserver);
    requireExecutable("ETCD", etcd);
  }

  /** Uses the environment's binaries when both are given, else builds or finds the cached ones. */
  public static ControlPlaneBinaries resolve(Path moduleDir) throws IOException {
    String apiserver = System.getenv("KUBE_APISERVER");
    String etcd = System.getenv("ETCD");
    if (notBlank(apiserver) && notBlank(etcd)) {
      return new ControlPlaneBinaries(Path.of(apiserver), Path.of(etcd));
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
    return new ControlPlaneBinaries(Path.of(vars.get("KUBE_APISERVER")), Path.of(vars.get("ETCD")));
  }

  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  private static void requireExecutable(String what, Path path) {
    if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
      throw new IllegalArgumentException(what + "=" + path + " is not an executable file");
    }
  }
}
