package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.plugins.placement.PaperPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class TraceToKubeTest {

  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  // JSON, one List object: the Kubernetes form the reader also takes, and much faster than YAML.
  private static String json(List<? extends HasMetadata> objects) {
    return YAML.asJson(new KubernetesListBuilder().withItems(new ArrayList<>(objects)).build());
  }

  @Test
  void kubernetesFormReplaysExactlyLikeTheCsv() throws Exception {
    // A slice of a constrained trace keeps the YAML small; model constraints still bind.
    Trace full = BundledTraces.trace("gpuspec10");
    Trace csv = new Trace("gpuspec10", full.nodes().subList(0, 200), full.pods().subList(0, 1200));
    List<HasMetadata> nodes = new ArrayList<>();
    csv.nodes().forEach(n -> nodes.add(TraceToKube.node(n)));
    List<HasMetadata> pods = new ArrayList<>();
    csv.pods().forEach(p -> pods.add(TraceToKube.pod(p, "default", "hami-scheduler")));
    String nodeYaml = json(nodes);
    String podYaml = json(pods);

    List<TraceNode> readNodes = KubeObjects.readNodes(nodeYaml, "nodes.json");
    List<TracePod> readPods =
        KubeObjects.readPods(podYaml, "pods.json", KubeObjects.units(nodeYaml, "nodes.json"));
    assertThat(readNodes).hasSameSizeAs(csv.nodes());
    assertThat(readNodes.get(0).model()).isEqualTo("NVIDIA-" + csv.nodes().get(0).model());
    for (int i = 0; i < readPods.size(); i++) {
      TracePod a = csv.pods().get(i);
      TracePod b = readPods.get(i);
      assertThat(b.gpuMilli()).as(a.name()).isEqualTo(a.gpuMilli());
      assertThat(b.gpuCount()).isEqualTo(a.gpuCount());
      assertThat(b.cpuMilli()).isEqualTo(a.cpuMilli());
      assertThat(b.memMiB()).isEqualTo(a.memMiB());
    }
    PreparedTrace fromCsv = PreparedTrace.of(csv);
    PreparedTrace fromKube =
        PreparedTrace.of(
            new Trace(
                "gpuspec10",
                readNodes,
                readPods.stream()
                    .map(
                        p ->
                            new TracePod(
                                p.name().substring("default/".length()),
                                p.cpuMilli(),
                                p.memMiB(),
                                p.gpuCount(),
                                p.gpuMilli(),
                                p.gpuSpec(),
                                p.models()))
                    .toList()));
    assertThat(fromKube.emptyFragmentationRate()).isEqualTo(fromCsv.emptyFragmentationRate());
    RunResult a = new Replay(fromCsv).run(PaperPolicy.FGD, 42);
    RunResult b = new Replay(fromKube).run(PaperPolicy.FGD, 42);
    assertThat(b.node()).isEqualTo(a.node());
    assertThat(b.gpuMask()).isEqualTo(a.gpuMask());
  }
}
