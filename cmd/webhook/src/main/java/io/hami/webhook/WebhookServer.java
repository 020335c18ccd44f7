package io.hami.webhook;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.AbstractIdleService;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission webhook over HTTPS: {@code POST /webhook} takes an {@code AdmissionReview}, and
 * {@code GET /healthz} and {@code /readyz} answer 200 while it runs. The certificate and key are
 * read from PEM files and re-read every {@code certCheckInterval}; a changed pair is served to new
 * connections without a restart.
 *
 * <p>Runs alone ({@code hami webhook}) or inside {@code hami scheduler}; either way it is a Guava
 * {@link com.google.common.util.concurrent.Service}. Start fails (the service goes FAILED) when the
 * address cannot be bound or the certificate files are unusable.
 *
 * <p>Hosting it in another command (as {@code hami scheduler --webhook-bind-address} does):
 *
 * <pre>{@code
 * WebhookServer webhook = WebhookServer.builder()
 *     .bindAddress(BindAddress.parse(":9443"))
 *     .certificate(Path.of("/etc/hami/tls/tls.crt"), Path.of("/etc/hami/tls/tls.key"))
 *     .config(WebhookConfig.from(deviceConfig.nvidia(), "hami-scheduler", true))
 *     .client(kubernetesClient)
 *     .build();
 * // start and stop it with the command's other services, e.g. in a ServiceManager
 * }</pre>
 *
 * <p>Implementation notes: requests run on a fixed pool of {@code threads} with a bounded queue;
 * the API server calls with a 10 s timeout and treats failures per the webhook's failurePolicy, so
 * rejecting work under overload is safe. A single daemon thread re-reads the certificate files.
 */
public final class WebhookServer extends AbstractIdleService {

  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);

  /** Largest request body accepted; AdmissionReviews of real pods are far smaller. */
  static final int MAX_BODY_BYTES = 1 << 20;

  private final InetSocketAddress bindAddress;
  private final Path certFile;
  private final Path keyFile;
  private final Duration certCheckInterval;
  private final int threads;
  private final AdmissionHandler handler;

  private @Nullable HttpsServer server;
  private @Nullable ReloadingKeyManager keyManager;
  private @Nullable ThreadPoolExecutor workers;
  private @Nullable ScheduledExecutorService certWatcher;

  private WebhookServer(Builder b) {
    this.bindAddress = requireNonNull(b.bindAddress, "bindAddress");
    this.certFile = requireNonNull(b.certFile, "certFile");
    this.keyFile = requireNonNull(b.keyFile, "keyFile");
    this.certCheckInterval = b.certCheckInterval;
    this.threads = b.threads;
    PodAdmission admission = b.admission;
    if (admission == null) {
      checkArgument(b.config != null, "either admission or config must be set");
      checkArgument(b.client != null, "a Kubernetes client is needed with config");
      admission = new PodAdmission(b.config, ClusterLookup.api(b.client));
    }
    this.handler = new AdmissionHandler(admission);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The address actually bound (useful with port 0). */
  public InetSocketAddress address() {
    HttpsServer s = server;
    checkState(s != null, "webhook server is not running");
    return s.getAddress();
  }

  /** Re-reads the certificate files now; true if a new pair is served. */
  public boolean reloadCertificates() {
    ReloadingKeyManager km = keyManager;
    checkState(km != null, "webhook server is not running");
    return km.reloadIfChanged();
  }

  /** The certificate chain served to new connections. */
  public X509Certificate[] servedChain() {
    ReloadingKeyManager km = keyManager;
    checkState(km != null, "webhook server is not running");
    return km.currentChain();
  }

  @Override
  protected void startUp() throws IOException, GeneralSecurityException {
    ReloadingKeyManager km = new ReloadingKeyManager(certFile, keyFile);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(new KeyManager[] {km}, null, null);

    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(256),
            new ThreadFactoryBuilder().setNameFormat("hami-webhook-%d").setDaemon(true).build());
    HttpsServer s = HttpsServer.create(bindAddress, 128);
    s.setHttpsConfigurator(
        new HttpsConfigurator(tls) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = tls.getDefaultSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            params.setSSLParameters(p);
          }
        });
    s.createContext("/webhook", this::serveWebhook);
    s.createContext("/healthz", this::serveHealth);
    s.createContext("/readyz", this::serveHealth);
    s.setExecutor(pool);
    s.start();

    ScheduledExecutorService watcher =
        Executors.newSingleThreadScheduledExecutor(
            new ThreadFactoryBuilder().setNameFormat("hami-webhook-certs").setDaemon(true).build());
    long periodMs = certCheckInterval.toMillis();
    // Runs until close() shuts the watcher down; reloadIfChanged logs bad files and never throws
    // for them, so the future has nothing to report.
    var unused =
        watcher.scheduleWithFixedDelay(
            km::reloadIfChanged, periodMs, periodMs, TimeUnit.MILLISECONDS);

    this.keyManager = km;
    this.workers = pool;
    this.certWatcher = watcher;
    this.server = s;
    log.info(
        "webhook listening address={} cert={} subject={}",
        s.getAddress(),
        certFile,
        km.currentChain()[0].getSubjectX500Principal());
  }

  @Override
  protected void shutDown() throws InterruptedException {
    HttpsServer s = server;
    if (s != null) {
      // Lets requests in flight finish; the API server's own timeout is 10 s.
      s.stop(1);
    }
    ScheduledExecutorService w = certWatcher;
    if (w != null) {
      w.shutdownNow();
    }
    ThreadPoolExecutor p = workers;
    if (p != null) {
      p.shutdown();
      if (!p.awaitTermination(5, TimeUnit.SECONDS)) {
        p.shutdownNow();
      }
    }
    log.info("webhook stopped");
  }

  @Override
  protected String serviceName() {
    return "WebhookServer[" + bindAddress + "]";
  }

  private void serveWebhook(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "POST");
        send(exchange, 405, "text/plain", "use POST\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      byte[] body = readBody(exchange);
      if (body == null) {
        send(
            exchange,
            413,
            "text/plain",
            ("request body exceeds " + MAX_BODY_BYTES + " bytes\n")
                .getBytes(StandardCharsets.UTF_8));
        return;
      }
      AdmissionHandler.Reply reply;
      try {
        reply = handler.handle(body);
      } catch (RuntimeException e) {
        // A bug, not a verdict: answer 500 so the API server applies the failurePolicy.
        log.error("webhook failed on a request", e);
        send(
            exchange,
            500,
            "text/plain",
            ("internal error: " + e + "\n").getBytes(StandardCharsets.UTF_8));
        return;
      }
      String type = reply.status() == 200 ? "application/json" : "text/plain";
      send(exchange, reply.status(), type, reply.body());
    }
  }

  private void serveHealth(HttpExchange exchange) throws IOException {
    try (exchange) {
      send(exchange, 200, "text/plain", "ok\n".getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The body, or null when it is larger than {@link #MAX_BODY_BYTES}. */
  private static byte @Nullable [] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Builds a {@link WebhookServer}. */
  public static final class Builder {
    private @Nullable InetSocketAddress bindAddress;
    private @Nullable Path certFile;
    private @Nullable Path keyFile;
    private Duration certCheckInterval = Duration.ofSeconds(10);
    private int threads = 4;
    private @Nullable WebhookConfig config;
    private @Nullable KubernetesClient client;
    private @Nullable PodAdmission admission;

    private Builder() {}

    /** Where to listen; port 0 picks a free port (see {@link WebhookServer#address()}). */
    public Builder bindAddress(InetSocketAddress address) {
      this.bindAddress = address;
      return this;
    }

    /** PEM files of the serving certificate chain and its private key. */
    public Builder certificate(Path certFile, Path keyFile) {
      this.certFile = certFile;
      this.keyFile = keyFile;
      return this;
    }

    /** How often the certificate files are re-read (default 10 s). */
    public Builder certCheckInterval(Duration interval) {
      checkArgument(
          !interval.isNegative() && !interval.isZero(),
          "certCheckInterval must be > 0: %s",
          interval);
      this.certCheckInterval = interval;
      return this;
    }

    /** Worker threads for requests (default 4). */
    public Builder threads(int threads) {
      checkArgument(threads > 0, "threads must be > 0: %s", threads);
      this.threads = threads;
      return this;
    }

    /** The webhook's settings; used with {@link #client} to build the admission rules. */
    public Builder config(WebhookConfig config) {
      this.config = config;
      return this;
    }

    /** Reads namespaces, ResourceQuotas and pods for the namespace and quota checks. */
    public Builder client(KubernetesClient client) {
      this.client = client;
      return this;
    }

    /** The admission rules, replacing {@link #config} and {@link #client}. */
    public Builder admission(PodAdmission admission) {
      this.admission = admission;
      return this;
    }

    public WebhookServer build() {
      return new WebhookServer(this);
    }
  }
}
