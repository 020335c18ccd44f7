package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.e2e.ControlPlaneExtension;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code hami scheduler} as its own process, run from the shaded jar the way it is deployed, so
 * that a test can kill it with SIGKILL. Its output goes to a log registered with the control plane,
 * which saves it with the diagnostics of a failed test.
 */
final class SchedulerProcess implements AutoCloseable {
  private static final Pattern METRICS_PORT =
      Pattern.compile("serving metrics and health on port (\\d+)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();

  private final String identity;
  private final Process process;
  private final Path log;
  private final Thread reaper;

  private SchedulerProcess(String identity, Process process, Path log) {
    this.identity = identity;
    this.process = process;
    this.log = log;
    // A test JVM that ends early must not leave a scheduler behind.
    this.reaper = new Thread(process::destroyForcibly, "reap-" + identity);
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** The shaded jar built by the cmd/cli module ({@code cmd/cli/target/hami.jar}). */
  static Path jar() {
    Path jar =
        ControlPlaneExtension.moduleDir()
            .toAbsolutePath()
            .getParent()
            .resolve("cmd/cli/target/hami.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: build it first with `mvn -B -pl cmd/cli -am package -DskipTests` (CI builds it in `mvn -B verify`)");
    }
    return jar;
  }

  /**
   * Starts {@code hami scheduler} against {@code cp} with the configuration {@code config}, serving
   * metrics on a port of its choosing, and waits until it is either scheduling or, with leader
   * election, waiting for the lease.
   */
  static SchedulerProcess start(ControlPlane cp, Path config, String identity, boolean leaderElect)
      throws IOException {
    return start(cp, config, identity, leaderElect, List.of());
  }

  /**
   * As {@link #start(ControlPlane, Path, String, boolean)}, with {@code jvmOptions} added after the
   * usual ones (JMX, say).
   */
  static SchedulerProcess start(
      ControlPlane cp, Path config, String identity, boolean leaderElect, List<String> jvmOptions)
      throws IOException {
    Path log = cp.workDir().resolve("scheduler-" + identity + ".log");
    Files.writeString(
        log,
        "==== starting hami scheduler " + identity + System.lineSeparator(),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    cp.registerComponentLog("hami-scheduler-" + identity, log);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-jar", jar().toString(), "scheduler"));
    cmd.add("--kubeconfig=" + cp.kubeconfig());
    cmd.add("--config=" + config);
    cmd.add("--leader-elect=" + leaderElect);
    cmd.add("--lease-identity=" + identity);
    cmd.add("--metrics-bind-address=127.0.0.1:0");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    SchedulerProcess s = new SchedulerProcess(identity, p, log);
    try {
      s.awaitLog(
          leaderElect ? "waiting to lead lease" : "scheduling started", Duration.ofSeconds(90));
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  String identity() {
    return identity;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Asks the JVM for a thread dump (SIGQUIT), which it prints into its log; best effort. */
  void dumpThreads() {
    if (!process.isAlive()) {
      return;
    }
    try {
      new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid()))
          .inheritIO()
          .start()
          .waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      System.out.println("thread dump of scheduler " + identity + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(log " + log + " unreadable: " + e.getMessage() + ")";
    }
  }

  /** Waits until the log contains {@code text}; fails early when the process exits. */
  void awaitLog(String text, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!log().contains(text)) {
      if (!process.isAlive()) {
        throw new IOException(
            "scheduler "
                + identity
                + " exited with code "
                + process.exitValue()
                + " before logging \""
                + text
                + "\"; log:\n"
                + tail());
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "scheduler "
                + identity
                + " did not log \""
                + text
                + "\" within "
                + timeout
                + "; log:\n"
                + tail());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }

  private String tail() {
    String all = log();
    return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
  }

  /**
   * The sum of a metric's samples whose labels contain {@code labelFilter} (empty: every sample,
   * also an unlabelled one), from /metrics.
   */
  double metric(String name, String labelFilter) throws IOException, InterruptedException {
    Matcher m = METRICS_PORT.matcher(log());
    if (!m.find()) {
      throw new IllegalStateException("scheduler " + identity + " did not log its metrics port");
    }
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    double sum = 0;
    for (String line : r.body().split("\n")) {
      if ((line.startsWith(name + "{") || line.startsWith(name + " "))
          && line.contains(labelFilter)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** Pods this replica scheduled (bound), from its own metrics. */
  double scheduled() throws IOException, InterruptedException {
    return metric("hami_scheduler_schedule_attempts_total", "result=\"scheduled\"");
  }

  /** SIGTERM, as Kubernetes stops a container; returns the exit code. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "scheduler " + identity + " (pid " + process.pid() + ") did not stop on SIGTERM");
    }
    return process.exitValue();
  }

  /** SIGKILL, as a crash or an OOM kill: no shutdown hook runs, the lease is not released. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "scheduler " + identity + " (pid " + process.pid() + ") did not die");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs anyway.
    }
  }

  /**
   * The shipped profile with some top-level or plugin settings changed, written to {@code dir}.
   * Each key must occur exactly once in the shipped file, so a renamed setting fails here rather
   * than being silently ignored.
   */
  static Path configWith(Path dir, String fileName, Map<String, String> settings)
      throws IOException {
    String yaml = Files.readString(Scheduler.shippedConfig(), StandardCharsets.UTF_8);
    for (var e : settings.entrySet()) {
      Pattern p = Pattern.compile("(?m)^(\\s*" + Pattern.quote(e.getKey()) + ":)\\s*\\S.*$");
      Matcher m = p.matcher(yaml);
      if (!m.find()) {
        throw new IllegalStateException(e.getKey() + " is not in " + Scheduler.shippedConfig());
      }
      if (m.find()) {
        throw new IllegalStateException(
            e.getKey() + " occurs more than once in " + Scheduler.shippedConfig());
      }
      yaml = p.matcher(yaml).replaceFirst("$1 " + Matcher.quoteReplacement(e.getValue()));
    }
    Files.createDirectories(dir);
    Path out = dir.resolve(fileName);
    Files.writeString(out, yaml, StandardCharsets.UTF_8);
    return out;
  }

  @Override
  public String toString() {
    return "hami scheduler "
        + identity
        + " (pid "
        + process.pid()
        + (process.isAlive() ? ", running)" : ", exited)");
  }

  static @Nullable String holderOf(KubernetesClient client, String ns, String lease) {
    var l = client.leases().inNamespace(ns).withName(lease).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }
}
