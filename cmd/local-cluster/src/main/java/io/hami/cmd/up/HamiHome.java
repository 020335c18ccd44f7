package io.hami.cmd.up;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A checkout of this repository: the playground runs the control-plane build script from it and
 * reads the shipped scheduler profile, device config, webhook registration and samples.
 */
public record HamiHome(Path root) {
  /** Set by the {@code ./hami} launcher to the checkout it lives in. */
  public static final String ENV = "HAMI_HOME";

  /** Files a checkout must have; the first one also tells a checkout apart while walking up. */
  private static final ImmutableList<String> REQUIRED =
      ImmutableList.of(
          "test-e2e/bin/build-control-plane.sh",
          "config/scheduler/scheduler-config.yaml",
          "config/device-config.yaml",
          "config/deploy/common/webhook.yaml",
          "config/samples");

  public HamiHome {
    root = root.toAbsolutePath().normalize();
  }

  /** The module whose {@code bin/build-control-plane.sh} builds kube-apiserver and etcd. */
  public Path e2eModule() {
    return root.resolve("test-e2e");
  }

  public Path schedulerConfig() {
    return root.resolve("config/scheduler/scheduler-config.yaml");
  }

  public Path deviceConfig() {
    return root.resolve("config/device-config.yaml");
  }

  public Path webhookManifest() {
    return root.resolve("config/deploy/common/webhook.yaml");
  }

  public Path samples() {
    return root.resolve("config/samples");
  }

  /** What {@code dir} lacks to be a checkout; empty when it is one. */
  public static List<String> missing(Path dir) {
    List<String> out = new ArrayList<>();
    for (String r : REQUIRED) {
      if (!Files.exists(dir.resolve(r))) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * Finds the checkout: {@code $HAMI_HOME} when set (it must be one), else the first of {@code
   * start} and its parents that is one, else the same from {@code codeLocation} (where the jar
   * lies). The error names every place looked at.
   */
  public static HamiHome locate(@Nullable String env, Path start, @Nullable Path codeLocation) {
    if (env != null && !env.isBlank()) {
      Path dir = Path.of(env);
      List<String> lacks = missing(dir);
      if (!lacks.isEmpty()) {
        throw new IllegalArgumentException(
            ENV + "=" + env + " is not a hami checkout: it lacks " + String.join(", ", lacks));
      }
      return new HamiHome(dir);
    }
    Optional<Path> found = walkUp(start);
    if (found.isEmpty() && codeLocation != null) {
      found = walkUp(codeLocation);
    }
    return found
        .map(HamiHome::new)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "cannot find the hami checkout: "
                        + ENV
                        + " is not set and neither "
                        + start.toAbsolutePath()
                        + (codeLocation == null ? "" : " nor " + codeLocation)
                        + " lies in one (a directory with "
                        + REQUIRED.get(0)
                        + "); run it from the checkout or set "
                        + ENV));
  }

  private static Optional<Path> walkUp(Path from) {
    for (Path p = from.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
      if (missing(p).isEmpty()) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Where this class was loaded from (the jar, or a classes directory), when known. */
  static @Nullable Path codeLocation() {
    try {
      var source = HamiHome.class.getProtectionDomain().getCodeSource();
      return source == null ? null : Path.of(source.getLocation().toURI());
    } catch (Exception e) {
      return null;
    }
  }

  static HamiHome locate() {
    return locate(System.getenv(ENV), Path.of(""), codeLocation());
  }

  @Override
  public String toString() {
    return requireNonNull(root).toString();
  }
}
