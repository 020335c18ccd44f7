package io.hami.cmd.webhook;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.kube.cli.ClusterOptions;
import io.hami.model.config.DeviceConfig;
import io.hami.webhook.BindAddress;
import io.hami.webhook.WebhookConfig;
import io.hami.webhook.WebhookServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code hami webhook}: serves the mutating admission webhook alone, for clusters that run it apart
 * from the scheduler ({@code hami scheduler --webhook-bind-address} hosts the same webhook).
 *
 * <p>Exit codes: 0 after a clean shutdown (or a successful {@code --validate}), 2 for bad flags or
 * configuration (every problem is printed), 1 when the server fails.
 */
@Command(
    name = "webhook",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the mutating admission webhook (POST /webhook) over HTTPS.",
      "GPU pods are sent to the HAMi scheduler and given their defaults; pods with unusable GPU"
          + " values are refused. The certificate files are re-read when they change."
    })
public final class WebhookCommand implements Callable<Integer> {

  public static final int EXIT_OK = 0;
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = "--bind-address",
      defaultValue = ":9443",
      description = "Address to listen on, host:port (default: ${DEFAULT-VALUE}).")
  String bindAddress = ":9443";

  @Option(
      names = "--cert-file",
      defaultValue = "/etc/hami/tls/tls.crt",
      description = "PEM certificate chain served (default: ${DEFAULT-VALUE}).")
  Path certFile = Path.of("/etc/hami/tls/tls.crt");

  @Option(
      names = "--key-file",
      defaultValue = "/etc/hami/tls/tls.key",
      description = "PEM private key: PKCS#8, PKCS#1 RSA or SEC1 EC (default: ${DEFAULT-VALUE}).")
  Path keyFile = Path.of("/etc/hami/tls/tls.key");

  @Option(
      names = "--cert-check-interval",
      defaultValue = "10s",
      description =
          "How often the certificate files are re-read, e.g. 10s, 1m (default: ${DEFAULT-VALUE}).")
  String certCheckInterval = "10s";

  @Option(
      names = "--device-config-file",
      description = "Device config file (device-config.yaml); built-in defaults when absent.")
  @Nullable Path deviceConfigFile;

  @Option(
      names = "--scheduler-name",
      defaultValue = WebhookConfig.DEFAULT_SCHEDULER_NAME,
      description = "schedulerName given to GPU pods; empty leaves it (default: ${DEFAULT-VALUE}).")
  String schedulerName = WebhookConfig.DEFAULT_SCHEDULER_NAME;

  @Option(
      names = "--force-overwrite-default-scheduler",
      defaultValue = "true",
      arity = "1",
      description = "Also take GPU pods that name default-scheduler (default: ${DEFAULT-VALUE}).")
  boolean forceOverwriteDefaultScheduler = true;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--threads",
      defaultValue = "4",
      description = "Request worker threads (default: ${DEFAULT-VALUE}).")
  int threads = 4;

  @Option(
      names = "--validate",
      description = "Check flags and files, print the effective settings and exit.")
  boolean validateOnly;

  /** Flags and files, checked: everything the server needs. */
  record Settings(
      InetSocketAddress address,
      Path certFile,
      Path keyFile,
      Duration certCheckInterval,
      WebhookConfig config,
      int threads) {}

  @Override
  public Integer call() {
    PrintWriter out = spec().commandLine().getOut();
    PrintWriter err = spec().commandLine().getErr();
    List<String> problems = new ArrayList<>();
    Settings settings = settings(problems);
    if (settings == null) {
      for (String p : problems) {
        err.println("hami webhook: " + p);
      }
      err.printf(
          "hami webhook: %d configuration problem%s%n",
          problems.size(), problems.size() == 1 ? "" : "s");
      err.flush();
      return EXIT_USAGE;
    }
    if (validateOnly) {
      describe(settings, out);
      out.flush();
      return EXIT_OK;
    }
    return serve(settings, err);
  }

  /** Parses every flag and file, adding each problem; null when there is any. */
  @Nullable Settings settings(List<String> problems) {
    InetSocketAddress address = null;
    try {
      address = BindAddress.parse(bindAddress);
    } catch (IllegalArgumentException e) {
      problems.add("--bind-address: " + e.getMessage());
    }
    checkReadable("--cert-file", certFile, problems);
    checkReadable("--key-file", keyFile, problems);
    Duration interval = parseDuration(certCheckInterval);
    if (interval == null) {
      problems.add(
          "--cert-check-interval: \""
              + certCheckInterval
              + "\" is not a positive duration such as 500ms, 10s, 1m");
    }
    if (threads < 1 || threads > 256) {
      problems.add("--threads: " + threads + " is not in 1..256");
    }
    if (!schedulerName.isEmpty()
        && (schedulerName.length() > 253 || !DNS_SUBDOMAIN.matcher(schedulerName).matches())) {
      problems.add(
          "--scheduler-name: \""
              + schedulerName
              + "\" is not a valid scheduler name"
              + " (lower-case DNS subdomain)");
    }
    DeviceConfig devices =
        WebhookOptions.loadDeviceConfig(
            deviceConfigFile, "hami webhook", problems, spec().commandLine().getErr());
    WebhookConfig config = null;
    try {
      config = WebhookConfig.from(devices, schedulerName, forceOverwriteDefaultScheduler);
    } catch (IllegalArgumentException e) {
      problems.add("--device-config-file: " + e.getMessage());
    }
    if (!problems.isEmpty() || address == null || interval == null || config == null) {
      return null;
    }
    return new Settings(address, certFile, keyFile, interval, config, threads);
  }

  private int serve(Settings s, PrintWriter err) {
    KubernetesClient client;
    try {
      client = cluster.client();
    } catch (RuntimeException | IOException e) {
      err.println("hami webhook: cannot configure the Kubernetes client: " + e.getMessage());
      err.flush();
      return EXIT_RUNTIME;
    }
    WebhookServer server =
        WebhookServer.builder()
            .bindAddress(s.address())
            .certificate(s.certFile(), s.keyFile())
            .certCheckInterval(s.certCheckInterval())
            .threads(s.threads())
            .config(s.config())
            .client(client)
            .build();
    Thread hook =
        new Thread(
            () -> {
              server.stopAsync();
              try {
                server.awaitTerminated(15, TimeUnit.SECONDS);
              } catch (Exception e) {
                // Shutting down anyway.
              }
            },
            "hami-webhook-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      server.startAsync().awaitRunning();
      server.awaitTerminated();
      return EXIT_OK;
    } catch (IllegalStateException e) {
      Throwable cause = server.failureCause();
      err.println("hami webhook: " + (cause == null ? e.getMessage() : cause.toString()));
      err.flush();
      return EXIT_RUNTIME;
    } finally {
      client.close();
    }
  }

  private static void describe(Settings s, PrintWriter out) {
    WebhookConfig c = s.config();
    out.println("bind address:        " + s.address());
    out.println(
        "certificate:         " + s.certFile() + " (re-read every " + s.certCheckInterval() + ")");
    out.println("key:                 " + s.keyFile());
    out.println(
        "scheduler name:      "
            + (c.schedulerName().isEmpty() ? "(left as is)" : c.schedulerName())
            + (c.forceOverwriteDefaultScheduler() ? ", also replacing default-scheduler" : ""));
    out.println("resources:           " + String.join(", ", c.names().all()));
    out.println("memory factor:       " + c.rule().memoryFactor());
    out.println("default GPUs:        " + c.defaultGpuNum());
    out.println("default memory:      " + c.rule().defaultMemory() + " MiB");
    out.println("default cores:       " + c.rule().defaultCores());
    out.println("core policy:         " + c.gpuCorePolicy().wire());
    out.println("hide GPUs (env):     " + c.overwriteEnv());
    out.println(
        "runtime class:       "
            + (c.runtimeClassName().isEmpty() ? "(none)" : c.runtimeClassName()));
    out.println("threads:             " + s.threads());
  }

  static void checkReadable(String flag, Path file, List<String> problems) {
    if (!Files.isRegularFile(file)) {
      problems.add(flag + ": " + file + " does not exist or is not a file");
    } else if (!Files.isReadable(file)) {
      problems.add(flag + ": " + file + " is not readable");
    }
  }

  /**
   * {@code 500ms}, {@code 10s}, {@code 1m}, {@code 2h} or ISO-8601 ({@code PT10S}); null if bad.
   */
  static @Nullable Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DURATION.matcher(t);
    Duration d = null;
    if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        return null;
      }
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } else {
      try {
        d = Duration.parse(text.trim());
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    return d.isNegative() || d.isZero() ? null : d;
  }

  private CommandSpec spec() {
    if (spec == null) {
      throw new IllegalStateException("picocli did not inject the command spec");
    }
    return spec;
  }
}
