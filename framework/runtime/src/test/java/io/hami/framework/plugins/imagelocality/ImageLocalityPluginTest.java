package io.hami.framework.plugins.imagelocality;

import static io.hami.framework.plugins.imagelocality.ImageLocalityPlugin.MB;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.CycleState;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.testing.FakeHandle;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ImageLocalityPluginTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "nginx, docker.io/library/nginx:latest",
    "nginx:1.25, docker.io/library/nginx:1.25",
    "library/nginx, docker.io/library/nginx:latest",
    "docker.io/nginx, docker.io/library/nginx:latest",
    "index.docker.io/library/nginx, docker.io/library/nginx:latest",
    "user/app:v1, docker.io/user/app:v1",
    "gcr.io/proj/app, gcr.io/proj/app:latest",
    "localhost:5000/app, localhost:5000/app:latest",
    "localhost/app:1, localhost/app:1",
    "registry:5000/app@sha256:abc, registry:5000/app@sha256:abc",
    "repo@sha256:abc, docker.io/library/repo@sha256:abc",
  })
  void normalize(String image, String want) {
    assertThat(ImageNames.normalize(image)).isEqualTo(want);
  }

  record Case(String name, Pod pod, List<NodeInfo> nodes, List<Long> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static NodeInfo n(MakeNode m) {
    return NodeInfo.of(m.obj());
  }

  static Stream<Case> scoreCases() {
    NodeInfo n1 =
        n(
            MakeNode.named("n1")
                .image(40 * MB, "gcr.io/40:latest", "gcr.io/40:v1")
                .image(300 * MB, "gcr.io/300:latest"));
    NodeInfo n2 =
        n(MakeNode.named("n2").image(250 * MB, "gcr.io/250:latest").image(10 * MB, "gcr.io/10:v1"));
    NodeInfo bare = n(MakeNode.named("n3"));
    return Stream.of(
        new Case(
            "two images on one of two nodes, each scaled by half",
            MakePod.named("p")
                .container("a")
                .image("gcr.io/40")
                .container("b")
                .image("gcr.io/300")
                .obj(),
            List.of(n1, n2),
            // (40 + 300) / 2 = 170MB over 2 containers: 100 * (170 - 23) / (2000 - 23)
            List.of(7L, 0L)),
        new Case(
            "an image below 23MB scores nothing",
            MakePod.named("p").image("gcr.io/10:v1").obj(),
            List.of(n1, n2),
            List.of(0L, 0L)),
        new Case(
            "Docker Hub spellings match on both sides; an image everywhere is not scaled down",
            MakePod.named("p").image("nginx").obj(),
            List.of(
                n(MakeNode.named("a").image(500 * MB, "docker.io/library/nginx:latest")),
                n(MakeNode.named("b").image(500 * MB, "nginx:latest"))),
            // 100 * (500 - 23) / (1000 - 23)
            List.of(48L, 48L)),
        new Case(
            "a third node without the image scales it to two thirds",
            MakePod.named("p").image("nginx").obj(),
            List.of(
                n(MakeNode.named("a").image(500 * MB, "docker.io/library/nginx:latest")),
                n(MakeNode.named("b").image(500 * MB, "nginx:latest")),
                bare),
            // 500MB * 2/3 = 333.33MB: 100 * (349525333 - 23MB) / 977MB
            List.of(31L, 31L, 0L)),
        new Case(
            "the score is capped at 1000MB per container",
            MakePod.named("p").image("big:1").initContainer("i", false).image("big:1").obj(),
            List.of(n(MakeNode.named("a").image(4000 * MB, "docker.io/library/big:1"))),
            List.of(100L)),
        new Case(
            "a digest is a version of its own",
            MakePod.named("p").image("repo@sha256:abc").obj(),
            List.of(
                n(MakeNode.named("a").image(100 * MB, "docker.io/library/repo@sha256:abc")),
                n(MakeNode.named("b").image(100 * MB, "docker.io/library/repo:latest"))),
            // 100MB / 2: 100 * (50 - 23) / 977
            List.of(2L, 0L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scoreCases")
  void score(Case c) {
    FakeHandle handle = new FakeHandle().withNodes(c.nodes().toArray(NodeInfo[]::new));
    var plugin = new ImageLocalityPlugin(handle);
    CycleState state = new CycleState();
    plugin.preScore(state, c.pod(), c.nodes());
    assertThat(c.nodes().stream().map(n -> plugin.score(state, c.pod(), n)).toList())
        .isEqualTo(c.want());
  }

  @Test
  void preScore_skipsWhenNoNodeHoldsAnyImage() {
    NodeInfo a = n(MakeNode.named("a").image(500 * MB, "other:1"));
    var plugin = new ImageLocalityPlugin(new FakeHandle().withNodes(a));
    assertThat(plugin.preScore(new CycleState(), MakePod.named("p").obj(), List.of(a)).isSkip())
        .isTrue();
  }

  @Test
  void malformedNodeImages_areSkipped() {
    var node = MakeNode.named("a").image(500 * MB, "nginx").obj();
    node.getStatus().getImages().get(0).setSizeBytes(null);
    node.getStatus().getImages().add(null);
    node.getStatus().getImages().get(0).setNames(Arrays.asList("nginx", null, ""));
    NodeInfo info = NodeInfo.of(node);
    assertThat(ImageLocalityPlugin.images(info)).containsOnlyKeys("docker.io/library/nginx:latest");
    assertThat(ImageLocalityPlugin.images(info)).isSameAs(ImageLocalityPlugin.images(info));
  }

  @Test
  void priority_clampsBetweenThresholds() {
    assertThat(ImageLocalityPlugin.priority(0, 1)).isZero();
    assertThat(ImageLocalityPlugin.priority(23 * MB, 1)).isZero();
    assertThat(ImageLocalityPlugin.priority(1000 * MB, 1)).isEqualTo(100);
    assertThat(ImageLocalityPlugin.priority(5000 * MB, 3)).isEqualTo(100);
  }
}
