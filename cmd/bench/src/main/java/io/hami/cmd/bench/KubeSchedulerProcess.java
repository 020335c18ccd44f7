package io.hami.cmd.bench;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * kube-scheduler as the baseline, in its own process against the same API server: the default
 * profile ({@code default-scheduler}), leader election off, and the client QPS and burst of the
 * scheduler under test ({@code scheduler.kubeQps} and {@code scheduler.kubeBurst}: 5,000 and 10,000
 * in the shipped workloads, where kube-scheduler's own defaults are 50 and 100). Its metrics are
 * read from its secure port on 127.0.0.1, with {@code /metrics} among the paths it serves without
 * authorization; its certificate is its own self-signed one, trusted for this loopback scrape only.
 */
final class KubeSchedulerProcess implements ScrapedProcess {
  /** The environment variable that names the kube-scheduler binary. */
  static final String ENV = "KUBE_SCHEDULER";

  /** The scheduler name of kube-scheduler's default profile. */
  static final String SCHEDULER_NAME = "default-scheduler";

  private final Process process;
  private final Path log;
  private final int port;
  private final HttpClient http;
  private final Thread shutdownHook;
  private volatile String lastReadyz = "no answer yet";

  private KubeSchedulerProcess(Process process, Path log, int port, Thread shutdownHook)
      throws GeneralSecurityException {
    this.process = process;
    this.log = log;
    this.port = port;
    this.shutdownHook = shutdownHook;
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new TrustManager[] {new LoopbackTrust()}, null);
    this.http =
        HttpClient.newBuilder()
            .sslContext(ssl)
            // Its HTTP/2 server answers the JDK client's connection with GOAWAY.
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /**
   * The KubeSchedulerConfiguration the baseline runs with.
   *
   * @param kubeconfig the API server's kubeconfig
   * @param flags the client QPS and burst of the scheduler under test
   */
  static String configuration(Path kubeconfig, Workload.SchedulerFlags flags) {
    return String.format(
        Locale.ROOT,
        """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        clientConnection:
          kubeconfig: "%s"
          qps: %s
          burst: %d
        leaderElection:
          leaderElect: false
        profiles:
          - schedulerName: %s
        """,
        kubeconfig.toAbsolutePath(),
        flags.kubeQps(),
        flags.kubeBurst(),
        SCHEDULER_NAME);
  }

  /**
   * Starts kube-scheduler and waits until it reports ready.
   *
   * @param binary the kube-scheduler binary
   * @param dir where its configuration and log go
   */
  static KubeSchedulerProcess start(
      Path binary, Path kubeconfig, Workload.SchedulerFlags flags, Path dir, Duration timeout)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(binary)) {
      throw new IOException("kube-scheduler binary " + binary + " is missing or not executable");
    }
    Files.createDirectories(dir);
    Path config = dir.resolve("kube-scheduler-config.yaml");
    Files.writeString(config, configuration(kubeconfig, flags));
    Path log = dir.resolve("kube-scheduler.log");
    int port = freePort();
    List<String> cmd =
        List.of(
            binary.toString(),
            "--config=" + config,
            "--bind-address=127.0.0.1",
            "--secure-port=" + port,
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
            "--v=1");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    // A run cut short (Ctrl-C) must not leave kube-scheduler running.
    Thread hook = new Thread(p::destroyForcibly, "hami-bench-kube-scheduler-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      KubeSchedulerProcess s = new KubeSchedulerProcess(p, log, port, hook);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!s.ready()) {
        if (!p.isAlive()) {
          throw new IOException(
              "kube-scheduler exited with code "
                  + p.exitValue()
                  + "; log "
                  + log
                  + ":\n"
                  + SchedulerProcess.tail(log));
        }
        if (System.nanoTime() > deadline) {
          throw new IOException(
              "kube-scheduler not ready after "
                  + timeout.toSeconds()
                  + " s (last /readyz: "
                  + s.lastReadyz
                  + "); log "
                  + log
                  + ":\n"
                  + SchedulerProcess.tail(log));
        }
        Thread.sleep(200);
      }
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      p.destroyForcibly();
      removeHook(hook);
      throw e;
    } catch (GeneralSecurityException e) {
      p.destroyForcibly();
      removeHook(hook);
      throw new IOException("no TLS for kube-scheduler's metrics: " + e, e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run
    }
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private boolean ready() throws InterruptedException {
    try {
      HttpResponse<String> r = get("/readyz?verbose");
      lastReadyz = r.statusCode() + " " + r.body().strip();
      return r.statusCode() == 200;
    } catch (IOException e) {
      lastReadyz = e.toString();
      return false;
    }
  }

  @Override
  public PromText scrape() throws IOException, InterruptedException {
    HttpResponse<String> r = get("/metrics");
    if (r.statusCode() != 200) {
      throw new IOException("kube-scheduler GET /metrics answered " + r.statusCode());
    }
    return PromText.parse(r.body());
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
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

  /**
   * Trusts kube-scheduler's self-signed serving certificate: used only for the scrape of a process
   * this harness started, on 127.0.0.1.
   */
  private static final class LoopbackTrust extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
