package io.hami.nodeagent.publish;

import io.hami.model.JsonStrings;
import io.hami.nodeagent.health.Gpu;
import io.hami.nodeagent.nvml.Nvml;
import io.hami.nodeagent.nvml.NvmlException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU pair scores of {@code hami.io/node-nvidia-score} (spec §1.4): the PCIe link score plus
 * 100 per NVLink. A pair whose links differ by direction scores 0.
 */
public final class TopologyScore {
  private static final Logger log = LoggerFactory.getLogger(TopologyScore.class);

  private TopologyScore() {}

  /** One pair score. */
  public record Pair(String from, String to, int score) {}

  public static List<Pair> compute(Nvml nvml, List<Gpu> gpus) throws NvmlException {
    List<Pair> out = new ArrayList<>();
    for (Gpu a : gpus) {
      for (Gpu b : gpus) {
        if (a.index() == b.index()) {
          continue;
        }
        int forward = nvml.nvLinks(a.index(), b.index());
        int backward = nvml.nvLinks(b.index(), a.index());
        int score;
        if ((forward > 0) != (backward > 0)) {
          log.warn("asymmetric GPU P2P link from={} to={}: scoring the pair 0", a.uuid(), b.uuid());
          score = 0;
        } else {
          score = nvml.pcieLink(a.index(), b.index()).score() + 100 * forward;
        }
        out.add(new Pair(a.uuid(), b.uuid(), score));
      }
    }
    return out;
  }

  /** {@code [{"uuid":"GPU-0","score":{"GPU-1":50}}]}, GPUs in the given order. */
  public static String encode(List<Gpu> gpus, List<Pair> pairs) {
    StringBuilder b = new StringBuilder("[");
    boolean firstGpu = true;
    for (Gpu g : gpus) {
      if (!firstGpu) {
        b.append(',');
      }
      firstGpu = false;
      b.append("{\"uuid\":").append(JsonStrings.quote(g.uuid())).append(",\"score\":{");
      // Go writes map keys sorted.
      boolean first = true;
      for (Pair p :
          pairs.stream()
              .filter(p -> p.from().equals(g.uuid()))
              .sorted(Comparator.comparing(Pair::to))
              .toList()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        b.append(JsonStrings.quote(p.to())).append(':').append(p.score());
      }
      b.append("}}");
    }
    return b.append(']').toString();
  }
}
