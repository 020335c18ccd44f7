package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hami.plugins.placement.PaperPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class TraceToKubeTest {

  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private static String yaml(List<? extends HasMetadata> objects) {
    StringBuilder b = new StringBuilder();
    for (HasMetadata o : objects) {
      b.append(YAML.asYaml(o)).append("\n");
    }
    return b.toString();
  }

  @Test
  void kubernetesFormReplaysExactlyLikeTheCsv() throws Exception {
    Trace csv = BundledTraces.trace("gpuspec10");
    List<HasMetadata> nodes = new ArrayList<>();
    csv.nodes().forEach(n -> nodes.add(TraceToKube.node(n)));
    List<HasMetadata> pods = new ArrayList<>();
    csv.pods().forEach(p -> pods.add(TraceToKube.pod(p, "default", "hami-scheduler")));
    String nodeYaml = yaml(nodes);
    String podYaml = yaml(pods);

    List<TraceNode> readNodes = KubeObjects.readNodes(nodeYaml, "nodes.yaml");
    List<TracePod> readPods = KubeObjects.readPods(podYaml, "pods.yaml", KubeObjects.units(nodeYaml, "nodes.yaml"));
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
    PreparedTrace fromKube = PreparedTrace.of(new Trace("gpuspec10", readNodes,
        readPods.stream().map(p -> new TracePod(p.name().substring("default/".length()), p.cpuMilli(),
            p.memMiB(), p.gpuCount(), p.gpuMilli(), p.gpuSpec(), p.models())).toList()));
    assertThat(fromKube.emptyFragmentationRate()).isEqualTo(fromCsv.emptyFragmentationRate());
    RunResult a = new Replay(fromCsv).run(PaperPolicy.FGD, 42);
    RunResult b = new Replay(fromKube).run(PaperPolicy.FGD, 42);
    assertThat(b.node()).isEqualTo(a.node());
    assertThat(b.gpuMask()).isEqualTo(a.gpuMask());
  }
}
