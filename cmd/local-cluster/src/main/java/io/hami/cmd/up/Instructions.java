package io.hami.cmd.up;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** What {@code hami up} prints once the playground is ready: where it is and what to try. */
final class Instructions {
  /** The sample walked through step by step; the others are listed. */
  static final String FIRST_SAMPLE = "gpu-slice.yaml";

  private Instructions() {}

  /** The comment lines at the top of a file, joined into one paragraph. */
  static String leadingComment(List<String> lines) {
    StringBuilder b = new StringBuilder();
    for (String line : lines) {
      String l = line.strip();
      if (!l.startsWith("#")) {
        break;
      }
      String text = l.replaceFirst("^#+\\s*", "");
      if (!text.isEmpty()) {
        b.append(b.length() == 0 ? "" : " ").append(text);
      }
    }
    return b.toString();
  }

  /** Up to the first full stop that ends a sentence. */
  static String firstSentence(String text) {
    int end = text.indexOf(". ");
    return end < 0 ? text : text.substring(0, end + 1);
  }

  /** One sample file: its name, its kinds and the first line of its leading comment. */
  record Sample(String file, List<String> kinds, String summary) {}

  /**
   * The text. {@code schedulerName} is the one the webhook gives GPU pods; {@code schedulerRunning}
   * is false with {@code --without-scheduler}; {@code clusterViewUrl} is the scheduler's cluster
   * view, null without it.
   */
  static String render(
      String server,
      Path kubeconfig,
      Path workDir,
      @Nullable Path logFile,
      PlaygroundSpec spec,
      String schedulerName,
      boolean schedulerRunning,
      @Nullable String clusterViewUrl,
      Path samplesDir) {
    List<Sample> samples = samples(samplesDir);
    StringBuilder b = new StringBuilder();
    String nl = System.lineSeparator();
    b.append("hami up: ready").append(nl);
    b.append("  apiserver   ").append(server).append(nl);
    b.append("  kubeconfig  ").append(kubeconfig).append(nl);
    b.append("  nodes       ")
        .append(String.join(", ", spec.nodeNames()))
        .append(": ")
        .append(spec.gpusPerNode())
        .append(" x ")
        .append(spec.gpuModel())
        .append(" (")
        .append(spec.gpuMemoryMiB())
        .append(" MiB, ")
        .append(spec.splitCount())
        .append(" vGPUs each)")
        .append(nl);
    if (schedulerRunning) {
      b.append("  scheduler   ")
          .append(schedulerName)
          .append(" (the webhook sends every GPU pod to it)")
          .append(nl);
    } else {
      b.append("  scheduler   none (--without-scheduler): GPU pods stay Pending until you run a")
          .append(" scheduler named ")
          .append(schedulerName)
          .append(" against this kubeconfig")
          .append(nl);
    }
    if (clusterViewUrl != null) {
      b.append("  cluster view ")
          .append(clusterViewUrl)
          .append(" (GPUs, their pods, pending pods and why)")
          .append(nl);
    }
    b.append("  work dir    ").append(workDir).append(nl);
    if (logFile != null) {
      b.append("  logs        ").append(logFile).append(nl);
    }
    b.append(nl);
    b.append("Try a sample with kubectl:").append(nl);
    Path first = samplesDir.resolve(FIRST_SAMPLE);
    String firstName = FIRST_SAMPLE.substring(0, FIRST_SAMPLE.length() - ".yaml".length());
    b.append("  export KUBECONFIG=").append(kubeconfig).append(nl);
    b.append("  kubectl apply -f ").append(first).append(nl);
    b.append("  kubectl get pods -o wide").append(nl);
    b.append("  kubectl get pod ")
        .append(firstName)
        .append(" -o jsonpath='{.spec.schedulerName}{\"\\n\"}")
        .append("{.metadata.annotations}{\"\\n\"}'")
        .append(nl);
    b.append("  kubectl get node ")
        .append(PlaygroundSpec.nodeName(1))
        .append(" -o jsonpath='{.metadata.annotations.hami\\.io/node-nvidia-register}{\"\\n\"}'")
        .append(nl);
    b.append("  kubectl delete -f ").append(first).append(nl);
    b.append(nl);
    b.append("Samples in ").append(samplesDir).append(" (kubectl apply -f <file>):").append(nl);
    int width = samples.stream().mapToInt(s -> s.file().length()).max().orElse(0);
    for (Sample s : samples) {
      b.append("  ")
          .append(String.format(Locale.ROOT, "%-" + width + "s", s.file()))
          .append("  ")
          .append(s.summary());
      if (s.kinds().contains("Deployment")) {
        b.append(
            " [a Deployment: it makes no pods here, the playground runs no controller manager]");
      }
      b.append(nl);
    }
    b.append(nl);
    b.append(
            "No container runs: the fake kubelets allocate the devices and report GPU pods Running."
                + " Pods without GPUs stay Pending (there is no default scheduler).")
        .append(nl);
    b.append("Press Ctrl-C to stop; the cluster and its work directory are removed.").append(nl);
    return b.toString();
  }

  static List<Sample> samples(Path dir) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
    List<Sample> out = new ArrayList<>();
    for (Path f : files) {
      List<String> lines;
      try {
        lines = Files.readAllLines(f, StandardCharsets.UTF_8);
      } catch (IOException e) {
        continue;
      }
      String summary = firstSentence(leadingComment(lines));
      List<String> kinds =
          lines.stream()
              .filter(l -> l.startsWith("kind:"))
              .map(l -> l.substring("kind:".length()).strip())
              .toList();
      out.add(new Sample(f.getFileName().toString(), kinds, summary));
    }
    return out;
  }
}
