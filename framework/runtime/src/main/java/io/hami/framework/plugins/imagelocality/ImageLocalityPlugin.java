package io.hami.framework.plugins.imagelocality;

import com.google.common.collect.ImmutableMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.FrameworkHandle;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.NodeLocal;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PluginRegistration;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.ScorePlugin;
import io.hami.framework.api.Snapshot;
import io.hami.framework.api.StateData;
import io.hami.framework.api.StateKey;
import io.hami.framework.api.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Favours nodes that already hold the pod's images, as kube-scheduler's ImageLocality: the sizes of
 * the images of the pod's init and app containers present on the node ({@code status.images}), each
 * scaled by the share of nodes holding it (so an image everywhere does not pull pods onto one
 * node), summed, clamped to {@code [23MB, 1000MB * containers]} and mapped linearly onto {@code [0,
 * 100]}.
 *
 * <p>A node's images, normalised, are kept on its NodeInfo (a {@link NodeLocal} slot), and how many
 * nodes hold each of the pod's images is kept across cycles by an {@link ImageSummary}, which
 * re-reads only the nodes whose NodeInfo changed.
 */
public final class ImageLocalityPlugin implements PreScorePlugin, ScorePlugin {
  public static final String NAME = "ImageLocality";
  static final long MB = 1024L * 1024;
  static final long MIN_THRESHOLD = 23 * MB;
  static final long MAX_CONTAINER_THRESHOLD = 1000 * MB;

  private static final NodeLocal<ImmutableMap<String, Long>> IMAGES =
      NodeLocal.create(NAME + ".images");
  private static final StateKey<PodImages> PRE_SCORE =
      StateKey.of("PreScore" + NAME, PodImages.class);

  /**
   * The pod's images, one entry per container (init containers first; a repeated image counts
   * again, as in kube-scheduler), with the number of nodes holding each and the node count.
   */
  private record PodImages(List<String> images, Map<String, Integer> numNodes, int totalNodes)
      implements StateData {}

  private final FrameworkHandle handle;
  private final ImageSummary summary = new ImageSummary();

  ImageLocalityPlugin(FrameworkHandle handle) {
    this.handle = handle;
  }

  public static Plugin create(FrameworkHandle handle) {
    return new ImageLocalityPlugin(handle);
  }

  public static PluginRegistration<?> registration() {
    return PluginRegistration.of(NAME, ImageLocalityPlugin::create);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> feasibleNodes) {
    PodImages images = podImages(pod, handle.snapshot());
    if (images.numNodes().isEmpty()) {
      // No node holds any of the images: every node would score 0.
      return Status.skip();
    }
    state.write(PRE_SCORE, images);
    return Status.success();
  }

  private PodImages podImages(Pod pod, Snapshot snapshot) {
    List<String> images = containerImages(pod);
    summary.refresh(snapshot);
    Map<String, Integer> numNodes = summary.holders(images);
    return new PodImages(images, Map.copyOf(numNodes), snapshot.size());
  }

  /** The normalised images of the pod's init and app containers, in order. */
  static List<String> containerImages(Pod pod) {
    PodSpec spec = pod.getSpec();
    List<String> out = new ArrayList<>();
    if (spec == null) {
      return out;
    }
    for (List<Container> cs :
        List.of(nonNull(spec.getInitContainers()), nonNull(spec.getContainers()))) {
      for (Container c : cs) {
        if (c != null && c.getImage() != null && !c.getImage().isBlank()) {
          out.add(ImageNames.normalize(c.getImage()));
        }
      }
    }
    return out;
  }

  private static List<Container> nonNull(@Nullable List<Container> l) {
    return l == null ? List.of() : l;
  }

  /** The node's images by normalised name with their sizes, computed once per NodeInfo. */
  static Map<String, Long> images(NodeInfo node) {
    ImmutableMap<String, Long> m = node.local(IMAGES);
    if (m == null) {
      m = imagesOf(node.node());
      node.setLocal(IMAGES, m);
    }
    return m;
  }

  private static ImmutableMap<String, Long> imagesOf(Node node) {
    if (node.getStatus() == null || node.getStatus().getImages() == null) {
      return ImmutableMap.of();
    }
    Map<String, Long> out = new HashMap<>();
    for (ContainerImage image : node.getStatus().getImages()) {
      if (image == null || image.getNames() == null) {
        continue;
      }
      long size = image.getSizeBytes() == null ? 0 : Math.max(0, image.getSizeBytes());
      for (String name : image.getNames()) {
        if (name != null && !name.isBlank()) {
          out.putIfAbsent(ImageNames.normalize(name), size);
        }
      }
    }
    return ImmutableMap.copyOf(out);
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo node) {
    PodImages s = state.get(PRE_SCORE);
    if (s == null) {
      s = podImages(pod, handle.snapshot());
    }
    Map<String, Long> onNode = images(node);
    long sum = 0;
    for (String image : s.images()) {
      Long size = onNode.get(image);
      Integer holders = s.numNodes().get(image);
      if (size != null && holders != null && s.totalNodes() > 0) {
        double spread = (double) holders / s.totalNodes();
        sum += (long) (size * spread);
      }
    }
    return priority(sum, containerCount(pod));
  }

  private static int containerCount(Pod pod) {
    PodSpec spec = pod.getSpec();
    return spec == null
        ? 0
        : nonNull(spec.getInitContainers()).size() + nonNull(spec.getContainers()).size();
  }

  /** Maps the summed image score onto {@code [0, 100]} between the two thresholds. */
  static long priority(long sumScores, int numContainers) {
    long maxThreshold = MAX_CONTAINER_THRESHOLD * Math.max(1, numContainers);
    long clamped = Math.max(MIN_THRESHOLD, Math.min(maxThreshold, sumScores));
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (maxThreshold - MIN_THRESHOLD);
  }
}
