package io.hami.framework.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.api.PodInfo;
import io.hami.framework.testing.MakePod;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

final class NominatorTest {
  private final Nominator nominator = new Nominator(PodInfo::of);

  private static Pod pod(String name, @Nullable String nominatedNodeName) {
    Pod p = MakePod.named(name).cpu("1").obj();
    p.getStatus().setNominatedNodeName(nominatedNodeName);
    return p;
  }

  private static String uid(Pod p) {
    return p.getMetadata().getUid();
  }

  @Test
  void empty_costsNothing() {
    assertThat(nominator.isEmpty()).isTrue();
    assertThat(nominator.nominatedPods("n1")).isEmpty();
  }

  @Test
  void add_nominatesAndRenominationMoves() {
    Pod p = pod("p", null);
    nominator.add(p, "n1");
    assertThat(nominator.nominatedPods("n1")).extracting(PodInfo::uid).containsExactly(uid(p));
    nominator.add(p, "n2");
    assertThat(nominator.nominatedPods("n1")).isEmpty();
    assertThat(nominator.nominatedNode(uid(p))).isEqualTo("n2");
    assertThat(nominator.size()).isEqualTo(1);
  }

  @Test
  void add_emptyNodeRemoves() {
    Pod p = pod("p", null);
    nominator.add(p, "n1");
    nominator.add(p, "");
    assertThat(nominator.isEmpty()).isTrue();
  }

  @Test
  void addFromStatus_restoresNominationAfterRestart() {
    nominator.addFromStatus(pod("p", "n1"));
    nominator.addFromStatus(pod("q", null));
    assertThat(nominator.nominatedPods("n1"))
        .extracting(i -> i.pod().getMetadata().getName())
        .containsExactly("p");
    assertThat(nominator.size()).isEqualTo(1);
  }

  @Test
  void update_keepsOwnNominationWhileStatusLags() {
    Pod p = pod("p", null);
    nominator.add(p, "n1");
    nominator.update(p, pod("p", null));
    assertThat(nominator.nominatedNode(uid(p))).isEqualTo("n1");
  }

  @Test
  void update_followsStatusChanges() {
    Pod old = pod("p", "n1");
    nominator.addFromStatus(old);
    nominator.update(old, pod("p", "n2"));
    assertThat(nominator.nominatedNode(uid(old))).isEqualTo("n2");
    nominator.update(pod("p", "n2"), pod("p", null));
    assertThat(nominator.nominatedNode(uid(old))).isNull();
  }

  @Test
  void add_ignoresAssignedPods() {
    Pod p = pod("p", "n1");
    p.getSpec().setNodeName("n1");
    nominator.addFromStatus(p);
    assertThat(nominator.isEmpty()).isTrue();
  }

  @Test
  void remove_dropsNomination() {
    Pod p = pod("p", "n1");
    nominator.addFromStatus(p);
    nominator.remove(uid(p));
    assertThat(nominator.nominatedPods("n1")).isEmpty();
    assertThat(nominator.isEmpty()).isTrue();
  }

  @Test
  void add_unparsableRequestIsNotNominated() {
    Pod p = MakePod.named("bad").cpu("lots").obj();
    nominator.add(p, "n1");
    assertThat(nominator.isEmpty()).isTrue();
  }
}
