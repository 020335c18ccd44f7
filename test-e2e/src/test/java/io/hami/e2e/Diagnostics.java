package io.hami.e2e;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.cmd.cluster.ControlPlane;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves what is needed to understand a failed test: the failure, the namespace's events and pods,
 * every node, and the log of every component. Each part is saved on its own, so an apiserver that
 * is down still leaves the logs behind.
 */
final class Diagnostics {
  private static final Logger log = LoggerFactory.getLogger(Diagnostics.class);

  private Diagnostics() {}

  static void save(
      Path dir,
      @Nullable Throwable failure,
      @Nullable ControlPlane controlPlane,
      @Nullable KubernetesClient client,
      @Nullable TestNamespace namespace) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      log.warn("cannot create diagnostics directory {}: {}", dir, e.toString());
      return;
    }
    if (failure != null) {
      StringWriter trace = new StringWriter();
      failure.printStackTrace(new PrintWriter(trace));
      write(dir.resolve("failure.txt"), trace.toString());
    }
    if (client != null) {
      KubernetesSerialization yaml = client.getKubernetesSerialization();
      if (namespace != null) {
        attempt(
            dir.resolve("events.yaml"),
            () -> {
              List<Event> events =
                  client.v1().events().inNamespace(namespace.name()).list().getItems().stream()
                      .sorted(Comparator.comparing(Diagnostics::eventTime))
                      .toList();
              return yaml.asYaml(events);
            });
        attempt(
            dir.resolve("pods.yaml"),
            () -> yaml.asYaml(client.pods().inNamespace(namespace.name()).list().getItems()));
      }
      attempt(dir.resolve("nodes.yaml"), () -> yaml.asYaml(client.nodes().list().getItems()));
    }
    if (controlPlane != null) {
      for (Map.Entry<String, Path> e : controlPlane.componentLogs().entrySet()) {
        try {
          if (Files.exists(e.getValue())) {
            Files.createDirectories(dir.resolve("logs"));
            Files.copy(
                e.getValue(),
                dir.resolve("logs").resolve(e.getKey() + ".log"),
                StandardCopyOption.REPLACE_EXISTING);
          }
        } catch (IOException ex) {
          log.warn("cannot copy log of {}: {}", e.getKey(), ex.toString());
        }
      }
    }
    log.info("diagnostics saved under {}", dir);
  }

  private static String eventTime(Event e) {
    return Objects.requireNonNullElse(
        e.getLastTimestamp(),
        Objects.requireNonNullElse(
            e.getEventTime() == null ? null : e.getEventTime().getTime(),
            Objects.requireNonNullElse(e.getMetadata().getCreationTimestamp(), "")));
  }

  private interface Part {
    String render();
  }

  private static void attempt(Path file, Part part) {
    try {
      write(file, part.render());
    } catch (RuntimeException e) {
      write(file, "# could not be read: " + e + "\n");
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      log.warn("cannot write {}: {}", file, e.toString());
    }
  }

  static String safeName(String s) {
    return s.replaceAll("[^A-Za-z0-9._-]+", "_");
  }
}
