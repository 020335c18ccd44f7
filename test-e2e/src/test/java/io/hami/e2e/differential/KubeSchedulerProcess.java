package io.hami.e2e.differential;

import io.hami.cmd.cluster.ControlPlane;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The upstream kube-scheduler, built with the control plane ({@code KUBE_SCHEDULER}), as a process
 * against the e2e apiserver: its own KubeSchedulerConfiguration with one default profile under
 * {@code schedulerName}, leader election off, no serving port. Its log joins the control plane's
 * diagnostics.
 */
final class KubeSchedulerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final Thread reaper;

  private KubeSchedulerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.reaper = new Thread(process::destroyForcibly, "reap-kube-scheduler");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  static KubeSchedulerProcess start(ControlPlane cp, String schedulerName) throws IOException {
    Path binary = cp.binaries().kubeScheduler();
    if (binary == null) {
      throw new IllegalStateException(
          "no kube-scheduler binary: set KUBE_SCHEDULER or let bin/build-control-plane.sh build it");
    }
    Path dir = cp.workDir().resolve("kube-scheduler-" + schedulerName);
    Files.createDirectories(dir);
    Path config = dir.resolve("config.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "apiVersion: kubescheduler.config.k8s.io/v1",
            "kind: KubeSchedulerConfiguration",
            "clientConnection:",
            "  kubeconfig: " + cp.kubeconfig(),
            "  qps: 200",
            "  burst: 400",
            "leaderElection:",
            "  leaderElect: false",
            "profiles:",
            "  - schedulerName: " + schedulerName,
            ""),
        StandardCharsets.UTF_8);
    Path log = dir.resolve("kube-scheduler.log");
    cp.registerComponentLog("kube-scheduler-" + schedulerName, log);
    Process p =
        new ProcessBuilder(
                List.of(binary.toString(), "--config=" + config, "--secure-port=0", "--v=2"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    KubeSchedulerProcess s = new KubeSchedulerProcess(p, log);
    try {
      s.awaitAlive(Duration.ofSeconds(3));
    } catch (IOException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void awaitAlive(Duration d) throws IOException {
    try {
      if (process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException(
            "kube-scheduler exited with code " + process.exitValue() + "; log:\n" + log());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  String log() {
    try {
      String all = Files.readString(log, StandardCharsets.UTF_8);
      return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e.getMessage() + ")";
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
  }
}
