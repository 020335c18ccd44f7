package io.hami.e2e;

import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneOptions;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a control plane until the process is interrupted, for trying things by hand: {@code
 * test-e2e/bin/start-control-plane.sh [work-dir]}. Prints the kubeconfig path on stdout.
 */
public final class ControlPlaneMain {
  private ControlPlaneMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 1) {
      System.err.println("usage: start-control-plane.sh [work-dir]");
      System.exit(2);
    }
    Path moduleDir = ControlPlaneExtension.moduleDir();
    ControlPlaneOptions options =
        ControlPlaneOptions.defaults(moduleDir).withControllerManager(true);
    if (args.length == 1) {
      options = options.withWorkDir(Path.of(args[0]).toAbsolutePath());
    }
    ControlPlane cp = ControlPlane.start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  cp.close();
                  stopped.countDown();
                },
                "control-plane-main-shutdown"));
    System.out.println("apiserver:  " + cp.server());
    System.out.println("kubeconfig: " + cp.kubeconfig());
    cp.componentLogs()
        .forEach((name, log) -> System.out.println("log:        " + name + " " + log));
    System.out.println(
        "try:        kubectl --kubeconfig " + cp.kubeconfig() + " get --raw /readyz");
    System.out.println("Ctrl-C stops them all and removes " + options.workDir());
    System.out.flush();
    stopped.await();
  }
}
