package io.hami.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeFilterTest {

  @Test
  void numFeasibleNodesToFind_followsAdaptivePercentageWithFloorOf100() {
    assertThat(NodeFilter.numFeasibleNodesToFind(0, 50)).isEqualTo(50);
    assertThat(NodeFilter.numFeasibleNodesToFind(0, 500)).isEqualTo(230);
    assertThat(NodeFilter.numFeasibleNodesToFind(0, 5000)).isEqualTo(500);
    assertThat(NodeFilter.numFeasibleNodesToFind(0, 100_000)).isEqualTo(5000);
    assertThat(NodeFilter.numFeasibleNodesToFind(1, 5000)).isEqualTo(100);
    assertThat(NodeFilter.numFeasibleNodesToFind(100, 5000)).isEqualTo(5000);
  }
}
