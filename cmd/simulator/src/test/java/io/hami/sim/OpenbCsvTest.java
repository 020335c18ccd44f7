package io.hami.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

final class OpenbCsvTest {

  private static final String POD_HEADER =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n";

  @Test
  void readsPodsWithOptionalColumns() throws Exception {
    List<TracePod> pods =
        OpenbCsv.readPods(
            new StringReader(
                POD_HEADER
                    + "p0,12000,16384,1,460,,LS\n"
                    + "p1,0,100,0,0,,BE\n"
                    + "p2,4000,200,2,1000,V100M16|V100M32,LS\n"
                    + "\n"),
            "pods.csv");
    assertThat(pods).hasSize(3);
    assertThat(pods.get(0)).isEqualTo(new TracePod("p0", 12000, 16384, 1, 460, "", List.of()));
    assertThat(pods.get(1).cpuMilli()).isEqualTo(TracePod.DEFAULT_CPU_MILLI);
    assertThat(pods.get(2).models()).containsExactly("V100M16", "V100M32");
    List<TracePod> five =
        OpenbCsv.readPods(
            new StringReader("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,10,8,1000\n"),
            "multigpu.csv");
    assertThat(five.get(0).totalGpuMilli()).isEqualTo(8000);
  }

  @Test
  void readsNodes() throws Exception {
    List<TraceNode> nodes =
        OpenbCsv.readNodes(
            new StringReader(
                "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,8000,1024,0,\n"),
            "nodes.csv");
    assertThat(nodes)
        .containsExactly(
            new TraceNode("n0", 64000, 262144, 2, "P100"), new TraceNode("n1", 8000, 1024, 0, ""));
  }

  static Stream<Arguments> badPods() {
    return Stream.of(
        Arguments.of(
            POD_HEADER + "p0,abc,1,1,100,,LS\n",
            "pods.csv line 2: column cpu_milli = 'abc': not an integer"),
        Arguments.of(
            POD_HEADER + "p0,1,1,9,100,,LS\n", "line 2: column num_gpu = '9': out of range 0..8"),
        Arguments.of(
            POD_HEADER + "p0,1,1,1,0,,LS\n",
            "column gpu_milli = '0': a GPU pod needs gpu_milli > 0"),
        Arguments.of(
            POD_HEADER + "p0,1,1,1,1500,,LS\n",
            "column gpu_milli = '1500': the share of each GPU is at most 1000"),
        Arguments.of(
            POD_HEADER + "p0,1,1,0,500,,LS\n",
            "column gpu_milli = '500': a share of a GPU needs num_gpu of 1 or more"),
        Arguments.of(POD_HEADER + "p0,1,1\n", "column num_gpu = '': missing"),
        Arguments.of("name,cpu_milli\n", "header lacks column 'memory_mib'"),
        Arguments.of("", "empty file"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource
  void badPods(String csv, String message) {
    assertThatThrownBy(() -> OpenbCsv.readPods(new StringReader(csv), "pods.csv"))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageContaining(message);
  }

  @Test
  void duplicateNamesAreRejected() {
    assertThatThrownBy(
            () ->
                new Trace(
                    "t",
                    List.of(new TraceNode("n", 1, 1, 1, "T4")),
                    List.of(
                        new TracePod("p", 1, 1, 0, 0, "", List.of()),
                        new TracePod("p", 1, 1, 0, 0, "", List.of()))))
        .hasMessageContaining("duplicate pod name p");
  }
}
