package io.hami.cmd.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.hami.model.config.DeviceConfig;
import io.hami.webhook.WebhookServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class WebhookOptionsTest {

  @Command(name = "host")
  static final class Host implements Runnable {
    @Mixin WebhookOptions webhook = new WebhookOptions();

    @Override
    public void run() {}
  }

  @TempDir Path dir;
  private final KubernetesClient client =
      new KubernetesClientBuilder()
          .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
          .build();

  @AfterEach
  void close() {
    client.close();
  }

  private static WebhookOptions parse(String... args) {
    Host host = new Host();
    new CommandLine(host).parseArgs(args);
    return host.webhook;
  }

  private Path resource(String name) throws IOException {
    Path to = dir.resolve(name);
    try (InputStream in = getClass().getResourceAsStream("/io/hami/webhook/pem/" + name)) {
      Files.write(to, in.readAllBytes());
    }
    return to;
  }

  @Test
  void offByDefault() {
    WebhookOptions o = parse();
    List<String> problems = new ArrayList<>();
    assertThat(o.enabled()).isFalse();
    assertThat(o.build(DeviceConfig.DEFAULTS, "hami-scheduler", client, problems)).isEmpty();
    assertThat(problems).isEmpty();
  }

  @Test
  void badFlags_areAllReported() {
    WebhookOptions o =
        parse(
            "--webhook-bind-address",
            "9443",
            "--webhook-cert-file",
            dir.resolve("none.crt").toString(),
            "--webhook-cert-check-interval",
            "soon");
    List<String> problems = new ArrayList<>();
    assertThat(o.build(DeviceConfig.DEFAULTS, "hami-scheduler", client, problems)).isEmpty();
    assertThat(problems)
        .hasSize(4)
        .anySatisfy(p -> assertThat(p).startsWith("--webhook-bind-address"))
        .anySatisfy(p -> assertThat(p).startsWith("--webhook-cert-file"))
        .anySatisfy(p -> assertThat(p).startsWith("--webhook-key-file"))
        .anySatisfy(p -> assertThat(p).startsWith("--webhook-cert-check-interval"));
  }

  @Test
  void goodFlags_giveAServerThatStarts() throws Exception {
    WebhookOptions o =
        parse(
            "--webhook-bind-address",
            "127.0.0.1:0",
            "--webhook-cert-file",
            resource("rsa.crt").toString(),
            "--webhook-key-file",
            resource("rsa-pkcs8.key").toString());
    List<String> problems = new ArrayList<>();
    Optional<WebhookServer> server =
        o.build(DeviceConfig.DEFAULTS, "hami-scheduler", client, problems);
    assertThat(problems).isEmpty();
    assertThat(server).isPresent();
    server.get().startAsync().awaitRunning(30, TimeUnit.SECONDS);
    try {
      assertThat(server.get().address().getPort()).isPositive();
    } finally {
      server.get().stopAsync().awaitTerminated(30, TimeUnit.SECONDS);
    }
  }
}
