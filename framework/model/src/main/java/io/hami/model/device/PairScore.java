package io.hami.model.device;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Topology scores from one GPU to the others on the node (one element of {@code
 * hami.io/node-nvidia-score}).
 *
 * @param uuid the GPU
 * @param score other GPU UUID → summed link score
 */
public record PairScore(String uuid, Map<String, Integer> score) {

  public PairScore {
    score = Collections.unmodifiableMap(new LinkedHashMap<>(score));
  }

  /** The score to {@code other}, 0 when unknown. */
  public int to(String other) {
    return score.getOrDefault(other, 0);
  }
}
