package io.hami.e2e.scenarios;

import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.GpuNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code hami node-agent --fake-gpus} as its own process, run from the shaded jar, serving the
 * device-plugin directory of a {@link GpuNode} started without an agent, so that a test can kill it
 * with SIGKILL. Its output goes to a log registered with the control plane.
 */
final class AgentProcess implements AutoCloseable {
  private final String node;
  private final Process process;
  private final Path log;
  private final Thread reaper;

  private AgentProcess(String node, Process process, Path log) {
    this.node = node;
    this.process = process;
    this.log = log;
    // A test JVM that ends early must not leave an agent behind.
    this.reaper = new Thread(process::destroyForcibly, "reap-agent-" + node);
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /**
   * Starts the agent of {@code node} with {@code fakeGpus} (see {@code --fake-gpus}) and {@code
   * splitCount} vGPUs per GPU, without metrics; returns once the process runs, without waiting for
   * registration.
   */
  static AgentProcess start(ControlPlane cp, Path dir, String node, String fakeGpus, int splitCount)
      throws IOException {
    return start(cp, dir, node, fakeGpus, splitCount, List.of(), "");
  }

  /**
   * As {@link #start(ControlPlane, Path, String, String, int)}, with {@code jvmOptions} added after
   * the usual ones (JMX, say) and metrics served on {@code metricsAddress} (empty: none).
   */
  static AgentProcess start(
      ControlPlane cp,
      Path dir,
      String node,
      String fakeGpus,
      int splitCount,
      List<String> jvmOptions,
      String metricsAddress)
      throws IOException {
    Path log = cp.workDir().resolve("node-agent-" + node + ".log");
    Files.writeString(
        log,
        "==== starting hami node-agent " + node + System.lineSeparator(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    cp.registerComponentLog("hami-node-agent-" + node, log);
    Files.createDirectories(dir.resolve(node).resolve("hook"));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-jar", SchedulerProcess.jar().toString(), "node-agent"));
    cmd.add("--kubeconfig=" + cp.kubeconfig());
    cmd.add("--node-name=" + node);
    cmd.add("--fake-gpus=" + fakeGpus);
    cmd.add("--device-split-count=" + splitCount);
    cmd.add("--kubelet-socket-dir=" + GpuNode.deviceDir(dir, node));
    cmd.add("--hook-path=" + dir.resolve(node).resolve("hook"));
    cmd.add("--metrics-address=" + metricsAddress);
    cmd.add("--register-interval=2s");
    cmd.add("--register-error-interval=1s");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    return new AgentProcess(node, p, log);
  }

  String node() {
    return node;
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, as a crash or an OOM kill: the device plugin's socket is left behind. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("node agent of " + node + " did not die");
    }
  }

  /** SIGTERM, then SIGKILL if the agent has not stopped within 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
  }

  @Override
  public String toString() {
    return "node agent of " + node + " (pid " + process.pid() + ")";
  }
}
