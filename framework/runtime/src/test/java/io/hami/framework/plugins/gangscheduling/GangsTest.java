package io.hami.framework.plugins.gangscheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.hami.framework.testing.MakePod;
import org.junit.jupiter.api.Test;

class GangsTest {
  private static final String KEY = "default/g";

  private static Pod member(String name) {
    return MakePod.named(name).uid(name + "-uid").obj();
  }

  @Test
  void aMemberWaitsForAnotherThatBlocks() {
    Gangs gangs = new Gangs();
    Pod a = member("a");
    Pod b = member("b");
    gangs.track(KEY, a);
    gangs.track(KEY, b);

    gangs.block(KEY, a);

    assertThat(gangs.blocker(KEY, "b-uid")).isEqualTo("default/a");
    assertThat(gangs.blocker(KEY, "a-uid")).isNull();
  }

  @Test
  void twoBlockingMembers_areEachTriedRatherThanWaitingForTheOther() {
    Gangs gangs = new Gangs();
    Pod a = member("a");
    Pod b = member("b");
    Pod c = member("c");
    gangs.track(KEY, a);
    gangs.track(KEY, b);
    gangs.track(KEY, c);

    gangs.block(KEY, a);
    gangs.unreserve(KEY, b, true, false); // b lost a place it had reserved: it blocks too

    assertThat(gangs.blocker(KEY, "a-uid")).isNull();
    assertThat(gangs.blocker(KEY, "b-uid")).isNull();
    assertThat(gangs.blocker(KEY, "c-uid")).isIn("default/a", "default/b");
  }
}
