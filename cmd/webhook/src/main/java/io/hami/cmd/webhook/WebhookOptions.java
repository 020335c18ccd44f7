package io.hami.cmd.webhook;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.model.ProtocolError;
import io.hami.model.config.DeviceConfig;
import io.hami.model.config.DeviceConfigFile;
import io.hami.model.config.Validated;
import io.hami.webhook.BindAddress;
import io.hami.webhook.WebhookConfig;
import io.hami.webhook.WebhookServer;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The webhook flags of a command that hosts the webhook beside its own work, as {@code hami
 * scheduler} does: add {@code @Mixin WebhookOptions webhook;} and, after reading the device config,
 * {@code webhook.build(devices, schedulerName, client, problems)} gives the server to start with
 * the command's other services. The webhook is off unless {@code --webhook-bind-address} is given.
 */
public final class WebhookOptions {

  @Option(
      names = "--webhook-bind-address",
      description =
          "Serve the admission webhook over HTTPS on host:port, e.g. :9443;"
              + " empty (default) serves none.")
  String bindAddress = "";

  @Option(
      names = "--webhook-cert-file",
      defaultValue = "/etc/hami/tls/tls.crt",
      description = "PEM certificate chain of the webhook (default: ${DEFAULT-VALUE}).")
  Path certFile = Path.of("/etc/hami/tls/tls.crt");

  @Option(
      names = "--webhook-key-file",
      defaultValue = "/etc/hami/tls/tls.key",
      description = "PEM private key of the webhook (default: ${DEFAULT-VALUE}).")
  Path keyFile = Path.of("/etc/hami/tls/tls.key");

  @Option(
      names = "--webhook-cert-check-interval",
      defaultValue = "10s",
      description =
          "How often the webhook re-reads its certificate files (default: ${DEFAULT-VALUE}).")
  String certCheckInterval = "10s";

  @Option(
      names = "--webhook-force-overwrite-default-scheduler",
      defaultValue = "true",
      arity = "1",
      description = "Also send GPU pods that name default-scheduler (default: ${DEFAULT-VALUE}).")
  boolean forceOverwriteDefaultScheduler = true;

  /**
   * Loads a device config file for a command's {@code --device-config-file} flag: built-in defaults
   * when {@code file} is null; each bad field is added to {@code problems} naming the flag, file,
   * field and value; warnings go to {@code err} prefixed with {@code command}.
   */
  public static DeviceConfig loadDeviceConfig(
      @Nullable Path file, String command, List<String> problems, PrintWriter err) {
    if (file == null) {
      return DeviceConfig.DEFAULTS;
    }
    Validated<DeviceConfig> loaded = DeviceConfigFile.load(file);
    if (loaded instanceof Validated.Invalid<DeviceConfig> invalid) {
      for (ProtocolError e : invalid.errors()) {
        problems.add(
            "--device-config-file "
                + file
                + ": "
                + e.field()
                + (e.value().isEmpty() ? "" : "=" + e.value())
                + ": "
                + e.message());
      }
      return DeviceConfig.DEFAULTS;
    }
    Validated.Valid<DeviceConfig> valid = (Validated.Valid<DeviceConfig>) loaded;
    for (String w : valid.warnings()) {
      err.println(command + ": warning: " + file + ": " + w);
    }
    return valid.value();
  }

  /** Whether the webhook is to be served. */
  public boolean enabled() {
    return !bindAddress.isBlank();
  }

  /**
   * Checks the flags and builds the (not yet started) server.
   *
   * @param devices the device config
   * @param schedulerName the scheduler GPU pods are sent to
   * @param problems receives one line per bad flag, naming the flag and value
   * @return the server, or empty when the webhook is off or a flag is bad
   */
  public Optional<WebhookServer> build(
      DeviceConfig devices, String schedulerName, KubernetesClient client, List<String> problems) {
    if (!enabled()) {
      return Optional.empty();
    }
    int before = problems.size();
    InetSocketAddress address = null;
    try {
      address = BindAddress.parse(bindAddress);
    } catch (IllegalArgumentException e) {
      problems.add("--webhook-bind-address: " + e.getMessage());
    }
    WebhookCommand.checkReadable("--webhook-cert-file", certFile, problems);
    WebhookCommand.checkReadable("--webhook-key-file", keyFile, problems);
    @Nullable Duration interval = WebhookCommand.parseDuration(certCheckInterval);
    if (interval == null) {
      problems.add(
          "--webhook-cert-check-interval: \""
              + certCheckInterval
              + "\" is not a positive duration such as 500ms, 10s, 1m");
    }
    WebhookConfig config = null;
    try {
      config = WebhookConfig.from(devices, schedulerName, forceOverwriteDefaultScheduler);
    } catch (IllegalArgumentException e) {
      problems.add("device config: " + e.getMessage());
    }
    if (problems.size() > before || address == null || interval == null || config == null) {
      return Optional.empty();
    }
    return Optional.of(
        WebhookServer.builder()
            .bindAddress(address)
            .certificate(certFile, keyFile)
            .certCheckInterval(interval)
            .config(config)
            .client(client)
            .build());
  }
}
