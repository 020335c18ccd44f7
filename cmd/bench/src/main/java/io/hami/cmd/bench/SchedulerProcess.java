package io.hami.cmd.bench;

import com.google.common.collect.ImmutableList;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The scheduler under test in its own JVM ({@code java -jar hami.jar scheduler}), so its CPU time
 * and heap are its own; they and its request counters are read from its {@code /metrics}. Its
 * metrics port is chosen by the OS and read from its log.
 */
final class SchedulerProcess implements ScrapedProcess {
  /**
   * Environment variable whose whitespace-separated words are added to the scheduler's JVM options,
   * after {@link #JVM_OPTIONS} (so that a later {@code -XX:TieredStopAtLevel=4} wins), e.g. {@code
   * -XX:StartFlightRecording=filename=/tmp/hami.jfr,settings=profile} to profile the scheduler.
   */
  static final String JAVA_OPTS_ENV = "HAMI_BENCH_SCHEDULER_JAVA_OPTS";

  /**
   * The scheduler's JVM options besides the heap: those the shipped deployment uses, so that the
   * bench measures what runs. Over a run of minutes on a small machine C2 compiling the hot paths
   * costs a third of the scheduler's CPU; {@code
   * HAMI_BENCH_SCHEDULER_JAVA_OPTS=-XX:TieredStopAtLevel=1} measures C1 only (README, "Where our
   * process spent its CPU").
   */
  static final ImmutableList<String> JVM_OPTIONS = ImmutableList.of("-XX:+UseParallelGC");

  private static final Pattern PORT = Pattern.compile("serving metrics and health on port (\\d+)");

  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Thread shutdownHook;

  private SchedulerProcess(Process process, Path log, int port, Thread shutdownHook) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.shutdownHook = shutdownHook;
  }

  /**
   * The repository's shipped scheduler configuration under {@code root} with the bench's {@code
   * settings}: the file itself when they are as shipped, else a copy under {@code work}.
   */
  static Path shippedConfig(Path root, Settings settings, Path work) throws IOException {
    Path shipped = root.resolve("config/scheduler/scheduler-config.yaml");
    if (settings.asShipped()) {
      return shipped;
    }
    String yaml = Files.readString(shipped, StandardCharsets.UTF_8);
    String nodelock =
        "          mode: "
            + settings.lockMode()
            + "\n"
            + (settings.maxBusyNodes() == null
                ? ""
                : "          maxBusyNodes: " + settings.maxBusyNodes() + "\n");
    yaml = replaceLine(shipped, yaml, "          mode: node\n", nodelock);
    List<String> primary = settings.primaryScore();
    if (primary != null) {
      yaml =
          replaceLine(
              shipped,
              yaml,
              "    primaryScore: vgpu\n",
              "    primaryScore: [" + String.join(", ", primary) + "]\n");
    }
    Path out = work.resolve("scheduler-config-bench.yaml");
    Files.writeString(out, yaml, StandardCharsets.UTF_8);
    return out;
  }

  /**
   * What the bench changes in the shipped configuration.
   *
   * @param lockMode the nodelock mode
   * @param primaryScore the profile's primaryScore list; null: as shipped
   * @param maxBusyNodes the nodelock maxBusyNodes; null: as shipped
   */
  record Settings(
      String lockMode, @Nullable List<String> primaryScore, @Nullable Integer maxBusyNodes) {
    static final Settings SHIPPED = new Settings("node", null, null);

    boolean asShipped() {
      return equals(SHIPPED);
    }

    /** Lock mode {@code scheduler}: no node lock on nodes whose agents need none. */
    boolean lockFree() {
      return lockMode.equals("scheduler");
    }

    /** As the report's header and environment give them. */
    String describe() {
      return "lock-mode="
          + lockMode
          + " primary-score="
          + (primaryScore == null ? "as shipped" : String.join(",", primaryScore))
          + " max-busy-nodes="
          + (maxBusyNodes == null ? "as shipped" : maxBusyNodes);
    }
  }

  private static String replaceLine(Path file, String yaml, String line, String with)
      throws IOException {
    if (!yaml.contains(line)) {
      throw new IOException(file + " has no '" + line.strip() + "' to change");
    }
    return yaml.replace(line, with);
  }

  /**
   * Starts the scheduler and waits until it reports ready.
   *
   * @param jar the hami jar
   * @param config the scheduler configuration file
   * @param log where its output goes
   */
  static SchedulerProcess start(
      Path jar,
      Path kubeconfig,
      Path config,
      Workload.SchedulerFlags flags,
      Path log,
      Duration timeout)
      throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx" + flags.heapMiB() + "m");
    cmd.addAll(JVM_OPTIONS);
    cmd.addAll(extraJvmOptions(System.getenv(JAVA_OPTS_ENV)));
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.add("scheduler");
    cmd.add("--kubeconfig=" + kubeconfig);
    cmd.add("--config=" + config);
    cmd.add("--leader-elect=false");
    cmd.add("--metrics-bind-address=127.0.0.1:0");
    cmd.add("--kube-qps=" + flags.kubeQps());
    cmd.add("--kube-burst=" + flags.kubeBurst());
    cmd.add("--binding-threads=" + flags.bindingThreads());
    Files.createDirectories(log.getParent());
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    // A run cut short (Ctrl-C) must not leave the scheduler running.
    Thread hook = new Thread(p::destroyForcibly, "hami-bench-scheduler-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    long deadline = System.nanoTime() + timeout.toNanos();
    int port = -1;
    try {
      while (port < 0) {
        if (!p.isAlive()) {
          throw new IOException(
              "scheduler exited with code " + p.exitValue() + "; log " + log + ":\n" + tail(log));
        }
        Matcher m = PORT.matcher(Files.readString(log, StandardCharsets.UTF_8));
        if (m.find()) {
          port = Integer.parseInt(m.group(1));
        } else {
          checkDeadline(deadline, log, "its metrics port");
          Thread.sleep(100);
        }
      }
      SchedulerProcess s = new SchedulerProcess(p, log, port, hook);
      while (!s.ready()) {
        if (!p.isAlive()) {
          throw new IOException(
              "scheduler exited with code " + p.exitValue() + "; log " + log + ":\n" + tail(log));
        }
        checkDeadline(deadline, log, "/readyz");
        Thread.sleep(100);
      }
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      p.destroyForcibly();
      removeHook(hook);
      throw e;
    }
  }

  /** The words of {@code value} ({@link #JAVA_OPTS_ENV}); none when it is null or blank. */
  static List<String> extraJvmOptions(@Nullable String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return List.of(value.strip().split("\\s+"));
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run
    }
  }

  private static void checkDeadline(long deadline, Path log, String what) throws IOException {
    if (System.nanoTime() > deadline) {
      throw new IOException(
          "scheduler not ready waiting for " + what + "; log " + log + ":\n" + tail(log));
    }
  }

  static String tail(Path log) {
    try {
      String s = Files.readString(log, StandardCharsets.UTF_8);
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private boolean ready() {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public PromText scrape() throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET /metrics answered " + r.statusCode());
    }
    return PromText.parse(r.body());
  }

  @Override
  public long pid() {
    return process.pid();
  }

  @Override
  public Path log() {
    return log;
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    removeHook(shutdownHook);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
