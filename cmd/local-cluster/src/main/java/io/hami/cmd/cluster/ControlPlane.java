package io.hami.cmd.cluster;

import com.google.common.collect.ImmutableList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.KubeClients;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real etcd and kube-apiserver on loopback: TLS everywhere, client-certificate and
 * ServiceAccount-token authentication, Node and RBAC authorization, and the admission plugins a
 * production cluster runs (webhooks and ValidatingAdmissionPolicy included). With {@link
 * ControlPlaneOptions#controllerManager()} a kube-controller-manager runs the controllers that
 * tests rely on ({@link #CONTROLLERS}: PV binding, ResourceQuota status, namespace deletion,
 * garbage collection, ReplicaSets, Deployments, ServiceAccounts); without it, and always for what a
 * kubelet does (node status), tests create what those would themselves.
 *
 * <p>Ports are picked free at start. {@link #close()} stops both processes and removes the work
 * directory; a JVM shutdown hook does the same when a run is cut short. Thread-safe.
 */
public final class ControlPlane implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControlPlane.class);
  private static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_BYTES = 4000;

  /** The ClusterIP of the {@code kubernetes} Service, first address of the service range. */
  private static final String SERVICE_CIDR = "10.96.0.0/16";

  /**
   * The alpha gates the apiserver and controller-manager run with. {@code GenericWorkload} serves
   * {@code scheduling.k8s.io/v1alpha2} PodGroups and keeps a pod's {@code spec.schedulingGroup}
   * (the apiserver drops the field without it); {@code GangScheduling} only changes kube-scheduler,
   * and is set so that every component agrees on what the cluster supports.
   */
  public static final String FEATURE_GATES = "GenericWorkload=true,GangScheduling=true";

  /** The alpha API the gang scenarios use: PodGroups (and Workloads) of the scheduling group. */
  public static final String RUNTIME_CONFIG = "scheduling.k8s.io/v1alpha2=true";

  /**
   * The controllers kube-controller-manager runs. Not the node lifecycle controller: fake nodes
   * send no heartbeats, and it would taint them and evict their pods. The PodGroup protection
   * controller removes the finalizer the apiserver puts on every PodGroup once no pod refers to it,
   * so that namespaces holding PodGroups can be deleted.
   */
  public static final ImmutableList<String> CONTROLLERS =
      ImmutableList.of(
          "serviceaccount-token-controller",
          "serviceaccount-controller",
          "namespace-controller",
          "garbage-collector-controller",
          "resourcequota-controller",
          "persistentvolume-binder-controller",
          "ephemeral-volume-controller",
          "replicaset-controller",
          "deployment-controller",
          "podgroup-protection-controller");

  private final ControlPlaneOptions options;
  private final Pki pki;
  private final Path kubeconfig;
  private final String server;
  private final String etcdUrl;
  private final ManagedProcess etcd;
  private final ManagedProcess apiserver;
  private final @Nullable ManagedProcess controllerManager;
  private final Map<String, Path> componentLogs = new LinkedHashMap<>();
  private final Thread shutdownHook;
  private boolean closed;

  private ControlPlane(
      ControlPlaneOptions options,
      Pki pki,
      Path kubeconfig,
      String server,
      String etcdUrl,
      ManagedProcess etcd,
      ManagedProcess apiserver,
      @Nullable ManagedProcess controllerManager) {
    this.options = options;
    this.pki = pki;
    this.kubeconfig = kubeconfig;
    this.server = server;
    this.etcdUrl = etcdUrl;
    this.etcd = etcd;
    this.apiserver = apiserver;
    this.controllerManager = controllerManager;
    componentLogs.put(etcd.name(), etcd.logFile());
    componentLogs.put(apiserver.name(), apiserver.logFile());
    if (controllerManager != null) {
      componentLogs.put(controllerManager.name(), controllerManager.logFile());
    }
    this.shutdownHook = new Thread(this::stopProcesses, "control-plane-shutdown");
  }

  /**
   * Starts etcd and kube-apiserver and waits until the apiserver's {@code /readyz} passes. Retries
   * with new ports when a port picked free was taken in the meantime. On failure nothing is left
   * running and the work directory, with the logs, is kept.
   */
  public static ControlPlane start(ControlPlaneOptions options) throws IOException {
    @Nullable IOException last = null;
    long started = System.nanoTime();
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Path dir = options.workDir().resolve("attempt-" + attempt);
      ControlPlane cp = prepare(options, dir);
      try {
        cp.startProcesses();
        log.info(
            "control plane ready at {} in {} ms (kubeconfig {})",
            cp.server,
            (System.nanoTime() - started) / 1_000_000,
            cp.kubeconfig);
        return cp;
      } catch (IOException e) {
        cp.stopProcesses();
        Runtime.getRuntime().removeShutdownHook(cp.shutdownHook);
        last = e;
        boolean portTaken =
            Stream.of(cp.etcd, cp.apiserver)
                .anyMatch(p -> p.logTail(LOG_TAIL_BYTES).contains("address already in use"));
        if (!portTaken) {
          break;
        }
        log.warn("a port picked for the control plane was taken; retrying ({})", e.getMessage());
      }
    }
    throw last != null ? last : new IOException("control plane did not start");
  }

  private static ControlPlane prepare(ControlPlaneOptions options, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path certs = dir.resolve("pki");
    Pki pki = Pki.create(certs, options.pkiBackend());
    Pki.CertAndKey etcdServer = pki.issueServing("etcd-server", List.of("etcd"));
    Pki.CertAndKey etcdClient =
        pki.issueClient("apiserver-etcd-client", "kube-apiserver", List.of());
    Pki.CertAndKey apiServing =
        pki.issue(
            "apiserver",
            "kube-apiserver",
            List.of(),
            List.of(
                "IP:127.0.0.1",
                "IP:10.96.0.1",
                "DNS:localhost",
                "DNS:kubernetes",
                "DNS:kubernetes.default",
                "DNS:kubernetes.default.svc",
                "DNS:kubernetes.default.svc.cluster.local"));
    Pki.CertAndKey admin = pki.issueClient("admin", "kubernetes-admin", List.of("system:masters"));
    Pki.SigningKey sa = pki.signingKey("service-account");

    int[] ports = freePorts(3);
    int etcdClientPort = ports[0];
    int etcdPeerPort = ports[1];
    int apiPort = ports[2];
    String etcdUrl = "https://127.0.0.1:" + etcdClientPort;
    String peerUrl = "http://127.0.0.1:" + etcdPeerPort;
    String server = "https://127.0.0.1:" + apiPort;

    Path logs = dir.resolve("logs");
    ManagedProcess etcd =
        new ManagedProcess(
            "etcd",
            List.of(
                options.binaries().etcd().toString(),
                "--name=hami-e2e",
                "--data-dir=" + dir.resolve("etcd-data"),
                "--listen-client-urls=" + etcdUrl,
                "--advertise-client-urls=" + etcdUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=hami-e2e=" + peerUrl,
                "--cert-file=" + etcdServer.cert(),
                "--key-file=" + etcdServer.key(),
                "--trusted-ca-file=" + pki.ca().cert(),
                "--client-cert-auth=true",
                // Test data need not survive a power cut; fsync dominates on a shared disk.
                "--unsafe-no-fsync=true",
                "--log-level=warn"),
            logs.resolve("etcd.log"),
            dir);
    ManagedProcess apiserver =
        new ManagedProcess(
            "kube-apiserver",
            List.of(
                options.binaries().kubeApiserver().toString(),
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + apiPort,
                "--tls-cert-file=" + apiServing.cert(),
                "--tls-private-key-file=" + apiServing.key(),
                "--client-ca-file=" + pki.ca().cert(),
                "--etcd-servers=" + etcdUrl,
                "--etcd-cafile=" + pki.ca().cert(),
                "--etcd-certfile=" + etcdClient.cert(),
                "--etcd-keyfile=" + etcdClient.key(),
                "--authorization-mode=Node,RBAC",
                "--enable-admission-plugins="
                    + "NodeRestriction,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,"
                    + "ValidatingAdmissionPolicy,ResourceQuota",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + sa.publicKey(),
                "--service-account-signing-key-file=" + sa.privateKey(),
                "--service-cluster-ip-range=" + SERVICE_CIDR,
                "--feature-gates=" + FEATURE_GATES,
                "--runtime-config=" + RUNTIME_CONFIG,
                "--allow-privileged=true",
                // Endpoints for 127.0.0.1 are invalid; nothing in the cluster dials the Service.
                "--endpoint-reconciler-type=none",
                "--profiling=false",
                "--v=1"),
            logs.resolve("kube-apiserver.log"),
            dir);

    Path kubeconfig = dir.resolve("admin.kubeconfig");
    Files.writeString(
        kubeconfig,
        Kubeconfig.withClientCert(server, pki.caPem(), admin.certPem(), admin.keyPem()),
        StandardCharsets.UTF_8);
    @Nullable ManagedProcess controllerManager =
        options.controllerManager() ? controllerManager(options, pki, sa, server, dir) : null;
    return new ControlPlane(
        options, pki, kubeconfig, server, etcdUrl, etcd, apiserver, controllerManager);
  }

  /**
   * kube-controller-manager as kubeadm runs it: its own client certificate (user {@code
   * system:kube-controller-manager}), each controller with its ServiceAccount's credentials, no
   * leader election and no serving port.
   */
  private static ManagedProcess controllerManager(
      ControlPlaneOptions options, Pki pki, Pki.SigningKey sa, String server, Path dir)
      throws IOException {
    Pki.CertAndKey cert =
        pki.issueClient("controller-manager", "system:kube-controller-manager", List.of());
    Path kubeconfig = dir.resolve("controller-manager.kubeconfig");
    Files.writeString(
        kubeconfig,
        Kubeconfig.withClientCert(server, pki.caPem(), cert.certPem(), cert.keyPem()),
        StandardCharsets.UTF_8);
    Path binary =
        Objects.requireNonNull(
            options.binaries().kubeControllerManager(), "checked by ControlPlaneOptions");
    return new ManagedProcess(
        "kube-controller-manager",
        List.of(
            binary.toString(),
            "--kubeconfig=" + kubeconfig,
            "--authentication-kubeconfig=" + kubeconfig,
            "--authorization-kubeconfig=" + kubeconfig,
            "--secure-port=0",
            "--leader-elect=false",
            "--use-service-account-credentials=true",
            "--service-account-private-key-file=" + sa.privateKey(),
            "--root-ca-file=" + pki.ca().cert(),
            "--controllers=" + String.join(",", CONTROLLERS),
            "--feature-gates=" + FEATURE_GATES,
            "--profiling=false",
            "--v=1"),
        dir.resolve("logs").resolve("kube-controller-manager.log"),
        dir);
  }

  private void startProcesses() throws IOException {
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    etcd.start();
    awaitPort(etcd, etcdUrl);
    startApiServer();
  }

  private void startApiServer() throws IOException {
    apiserver.start();
    awaitReady();
    if (controllerManager != null && !controllerManager.isAlive()) {
      controllerManager.start();
    }
  }

  private void awaitPort(ManagedProcess p, String url) throws IOException {
    URI uri = URI.create(url);
    long deadline = System.nanoTime() + options.startupTimeout().toNanos();
    while (true) {
      failIfExited(p);
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 500);
        return;
      } catch (IOException notYet) {
        // keep polling
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(timeoutMessage(p, "listening on " + url));
      }
      sleep(100);
    }
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + options.startupTimeout().toNanos();
    String lastError = "";
    try (KubernetesClient client = newAdminClient()) {
      while (true) {
        failIfExited(apiserver);
        failIfExited(etcd);
        try {
          String body = client.raw("/readyz");
          if ("ok".equals(body == null ? null : body.trim())) {
            return;
          }
          lastError = String.valueOf(body);
        } catch (RuntimeException notYet) {
          lastError = notYet.getMessage();
        }
        if (System.nanoTime() > deadline) {
          throw new IOException(
              timeoutMessage(apiserver, "/readyz (last answer: " + lastError + ")"));
        }
        sleep(250);
      }
    }
  }

  private String timeoutMessage(ManagedProcess p, String what) {
    return p.name()
        + " not ready after "
        + options.startupTimeout().toSeconds()
        + " s waiting for "
        + what
        + "; log "
        + p.logFile()
        + " ends with:\n"
        + p.logTail(LOG_TAIL_BYTES);
  }

  private static void failIfExited(ManagedProcess p) throws IOException {
    if (p.exitCode().isPresent()) {
      throw new IOException(
          p.name()
              + " exited with code "
              + p.exitCode().getAsInt()
              + "; log "
              + p.logFile()
              + " ends with:\n"
              + p.logTail(LOG_TAIL_BYTES));
    }
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the control plane", e);
    }
  }

  private static int[] freePorts(int n) throws IOException {
    // Hold all sockets until every port is known so that the n ports differ.
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  /** The executables this control plane runs. */
  public ControlPlaneBinaries binaries() {
    return options.binaries();
  }

  /** The apiserver's URL, {@code https://127.0.0.1:<port>}. */
  public String server() {
    return server;
  }

  /** The admin kubeconfig (user {@code kubernetes-admin} in {@code system:masters}). */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The CA that signed every certificate of this control plane. */
  public Pki pki() {
    return pki;
  }

  /** A new client with admin rights; the caller closes it. */
  public KubernetesClient newAdminClient() {
    try {
      return clientFor(Files.readString(kubeconfig, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A new client that authenticates with {@code token}; the caller closes it. */
  public KubernetesClient newTokenClient(String token) {
    try {
      return clientFor(Kubeconfig.withToken(server, pki.caPem(), token));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static KubernetesClient clientFor(String kubeconfigYaml) {
    Config config = Config.fromKubeconfig(kubeconfigYaml);
    return KubeClients.builder(config).build();
  }

  /**
   * Sends a GET over HTTP/1.1 that trusts only this control plane's CA, with {@code bearerToken}
   * when it is not null. For checks of what the apiserver answers before a client library reads it:
   * the apiserver ends HTTP/2 connections of unauthenticated requests with GOAWAY, which the JDK's
   * HTTP/2 client reports as an I/O error instead of the 401.
   */
  public HttpResponse<String> httpGet(String path, @Nullable String bearerToken)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(server + path)).timeout(Duration.ofSeconds(30));
    if (bearerToken != null) {
      request.header("Authorization", "Bearer " + bearerToken);
    }
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(trustingCa())
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private SSLContext trustingCa() throws IOException {
    try (InputStream in = Files.newInputStream(pki.ca().cert())) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot trust " + pki.ca().cert() + ": " + e.getMessage(), e);
    }
  }

  /** Log files of every component, the control plane's and those registered later, by name. */
  public synchronized Map<String, Path> componentLogs() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(componentLogs));
  }

  /** Makes a component's log part of the diagnostics saved when a test fails. */
  public synchronized void registerComponentLog(String name, Path logFile) {
    componentLogs.put(name, logFile);
  }

  /** Where components started by tests may keep their files; removed with the control plane. */
  public Path workDir() {
    return Objects.requireNonNull(
        kubeconfig.getParent(), "kubeconfig is a file in the work directory");
  }

  /** Stops the apiserver and starts it again on the same port with the same data. */
  public synchronized void restartApiServer() throws IOException {
    apiserver.stop();
    startApiServer();
  }

  /**
   * Kills the apiserver without a graceful shutdown; {@link #restartApiServer()} brings it back.
   */
  public synchronized void killApiServer() throws InterruptedException {
    apiserver.kill();
  }

  /**
   * Kills etcd without a graceful shutdown, as a crash would; the apiserver keeps running and fails
   * its requests until {@link #restartEtcd()} brings etcd back.
   */
  public synchronized void killEtcd() throws InterruptedException {
    etcd.kill();
  }

  /**
   * Starts etcd again on the same port with the same data, then waits until the apiserver is ready
   * (starting it again first when it is not running).
   */
  public synchronized void restartEtcd() throws IOException {
    etcd.stop();
    etcd.start();
    awaitPort(etcd, etcdUrl);
    if (apiserver.isAlive()) {
      awaitReady();
    } else {
      startApiServer();
    }
  }

  public synchronized boolean isRunning() {
    return etcd.isAlive() && apiserver.isAlive();
  }

  private void stopProcesses() {
    if (controllerManager != null) {
      controllerManager.stop();
    }
    apiserver.stop();
    etcd.stop();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; the processes are stopped either way.
    }
    if (!options.keepWorkDir()) {
      deleteTree(options.workDir());
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("could not remove {}: {}", root, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "ControlPlane[" + server + ", " + etcd + ", " + apiserver + "]";
  }
}
