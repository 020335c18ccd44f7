package io.hami.framework.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.NodeInfo;
import io.hami.framework.api.PodInfo;
import io.hami.framework.testing.FakeClock;
import io.hami.framework.testing.MakeNode;
import io.hami.framework.testing.MakePod;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SchedulerCacheTest {
  private final FakeClock clock = new FakeClock();
  private final SchedulerCache cache =
      new SchedulerCache(clock, Duration.ofSeconds(30), PodInfo::of);

  private static Pod bound(Pod p, String node) {
    p.getSpec().setNodeName(node);
    return p;
  }

  @Test
  void assume_countsPodAtOnce_andConfirmationReplacesIt() {
    cache.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
    Pod p = MakePod.named("p").cpu("1").obj();
    cache.assumePod(p, "n1");
    NodeInfo n = cache.nodeInfo("n1");
    assertThat(n.requested().milliCpu()).isEqualTo(1000);
    assertThat(n.pods()).singleElement().matches(PodInfo::assumed);
    assertThat(cache.isAssumed(p.getMetadata().getUid())).isTrue();

    cache.addPod(bound(MakePod.named("p").cpu("1").obj(), "n1"));
    assertThat(cache.isAssumed(p.getMetadata().getUid())).isFalse();
    assertThat(cache.nodeInfo("n1").pods()).singleElement().matches(pi -> !pi.assumed());
    assertThat(cache.nodeInfo("n1").requested().milliCpu()).isEqualTo(1000);
    assertThat(cache.assumedPodCount()).isZero();
  }

  @Test
  void assumeTwice_isAMisuse() {
    cache.addNode(MakeNode.named("n1").obj());
    Pod p = MakePod.named("p").obj();
    cache.assumePod(p, "n1");
    assertThatThrownBy(() -> cache.assumePod(p, "n1")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void forget_releasesAssumedPodAndIsIdempotent() {
    cache.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
    Pod p = MakePod.named("p").cpu("1").obj();
    cache.assumePod(p, "n1");
    cache.forgetPod(p);
    cache.forgetPod(p);
    assertThat(cache.nodeInfo("n1").pods()).isEmpty();
    assertThat(cache.nodeInfo("n1").requested().milliCpu()).isZero();
  }

  @Test
  void forget_leavesConfirmedPodAlone() {
    cache.addNode(MakeNode.named("n1").obj());
    Pod p = bound(MakePod.named("p").obj(), "n1");
    cache.addPod(p);
    cache.forgetPod(p);
    assertThat(cache.podCount()).isEqualTo(1);
  }

  @Test
  void assumedPod_expiresOnlyAfterBindingFinishedAndTtlPassed() {
    cache.addNode(MakeNode.named("n1").obj());
    Pod p = MakePod.named("p").obj();
    cache.assumePod(p, "n1");
    clock.advance(Duration.ofMinutes(10));
    assertThat(cache.cleanupExpiredAssumedPods()).isZero();
    cache.finishBinding(p);
    clock.advance(Duration.ofSeconds(29));
    assertThat(cache.cleanupExpiredAssumedPods()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(cache.cleanupExpiredAssumedPods()).isEqualTo(1);
    assertThat(cache.nodeInfo("n1").pods()).isEmpty();
  }

  @Test
  void generations_growOnEveryChange_acrossNodes() {
    cache.addNode(MakeNode.named("n1").obj());
    cache.addNode(MakeNode.named("n2").obj());
    long g1 = cache.nodeInfo("n1").generation();
    long g2 = cache.nodeInfo("n2").generation();
    assertThat(g2).isGreaterThan(g1);
    cache.addPod(bound(MakePod.named("p").obj(), "n1"));
    assertThat(cache.nodeInfo("n1").generation()).isGreaterThan(g2);
  }

  @Test
  void snapshot_copiesOnlyChangedNodes() {
    for (int i = 0; i < 50; i++) {
      cache.addNode(MakeNode.named("n" + i).capacity("4", "8Gi", 110).obj());
    }
    CacheSnapshot s = new CacheSnapshot();
    cache.updateSnapshot(s);
    assertThat(s.size()).isEqualTo(50);
    assertThat(s.lastUpdateCopied()).isEqualTo(50);
    NodeInfo untouched = s.get("n7");

    cache.addPod(bound(MakePod.named("a").cpu("1").obj(), "n3"));
    cache.assumePod(MakePod.named("b").cpu("1").obj(), "n9");
    cache.updateSnapshot(s);
    assertThat(s.lastUpdateCopied()).isEqualTo(2);
    assertThat(s.get("n3").requested().milliCpu()).isEqualTo(1000);
    assertThat(s.get("n9").requested().milliCpu()).isEqualTo(1000);
    assertThat(s.get("n7")).isSameAs(untouched);

    cache.updateSnapshot(s);
    assertThat(s.lastUpdateCopied()).isZero();
  }

  @Test
  void snapshot_tellsThePositionsReplacedSinceAGeneration_untilTheNodeListChanges() {
    for (int i = 0; i < 5; i++) {
      cache.addNode(MakeNode.named("n" + i).capacity("4", "8Gi", 110).obj());
    }
    CacheSnapshot s = new CacheSnapshot();
    assertThat(s.replacedSince(-1)).isNull();
    cache.updateSnapshot(s);
    long g0 = s.generation();
    assertThat(s.replacedSince(g0)).isEmpty();
    assertThat(s.replacedSince(g0 - 1)).as("before the node list was built").isNull();

    cache.addPod(bound(MakePod.named("a").cpu("1").obj(), "n3"));
    cache.updateSnapshot(s);
    long g1 = s.generation();
    cache.addPod(bound(MakePod.named("b").cpu("1").obj(), "n1"));
    cache.updateSnapshot(s);
    assertThat(s.replacedSince(g0)).containsExactlyInAnyOrder(3, 1);
    assertThat(s.replacedSince(g1)).containsExactly(1);
    assertThat(s.replacedSince(s.generation())).isEmpty();
    assertThat(s.replacedSince(s.generation() + 1)).as("a generation still to come").isNull();

    cache.addNode(MakeNode.named("n5").obj());
    cache.updateSnapshot(s);
    assertThat(s.replacedSince(g1)).as("the node list changed").isNull();
    assertThat(s.replacedSince(s.generation())).isEmpty();
  }

  @Test
  void snapshotLog_dropsItsOlderHalfWhenFull_andThenAnswersOnlyForRecentGenerations() {
    cache.addNode(MakeNode.named("n0").capacity("4", "8Gi", 110).obj());
    cache.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
    CacheSnapshot s = new CacheSnapshot();
    cache.updateSnapshot(s);
    long start = s.generation();
    for (int i = 0; i < CacheSnapshot.LOG_CAPACITY + 10; i++) {
      cache.touchNode("n" + (i % 2));
      cache.updateSnapshot(s);
    }
    assertThat(s.replacedSince(start)).isNull();
    assertThat(s.replacedSince(s.generation() - 3)).hasSize(3);
  }

  @Test
  void snapshot_rebuildsMembershipOnNodeAddAndRemove_keepingOrder() {
    cache.addNode(MakeNode.named("a").obj());
    cache.addNode(MakeNode.named("b").obj());
    CacheSnapshot s = new CacheSnapshot();
    cache.updateSnapshot(s);
    cache.addNode(MakeNode.named("c").obj());
    cache.removeNode(MakeNode.named("a").obj());
    cache.updateSnapshot(s);
    assertThat(s.nodes()).extracting(NodeInfo::name).containsExactly("b", "c");
    assertThat(s.get("a")).isNull();
  }

  @Test
  void removedNodeWithPods_keepsPodsAccountedUntilItReturns() {
    cache.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
    cache.addPod(bound(MakePod.named("p").cpu("1").obj(), "n1"));
    cache.removeNode(MakeNode.named("n1").obj());
    assertThat(cache.nodeInfo("n1")).isNull();
    cache.addNode(MakeNode.named("n1").capacity("4", "8Gi", 110).obj());
    assertThat(cache.nodeInfo("n1").requested().milliCpu()).isEqualTo(1000);
  }

  @Test
  void podOnUnknownNode_isHeldUntilTheNodeArrives() {
    cache.addPod(bound(MakePod.named("p").cpu("1").obj(), "later"));
    CacheSnapshot s = new CacheSnapshot();
    cache.updateSnapshot(s);
    assertThat(s.size()).isZero();
    cache.addNode(MakeNode.named("later").capacity("4", "8Gi", 110).obj());
    cache.updateSnapshot(s);
    assertThat(s.get("later").pods()).hasSize(1);
  }
}
