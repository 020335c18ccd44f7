package io.hami.cmd.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrphansTest {
  private static final String SLEEP = "/bin/sleep";

  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("/bin/true").start();
    p.waitFor(30, TimeUnit.SECONDS);
    return p.pid();
  }

  @Test
  void processOfAKilledRun_isStoppedAndItsDirectoryRemoved(@TempDir Path root) throws Exception {
    Process leftover = new ProcessBuilder(SLEEP, "300").start();
    try {
      Path dir = Files.createDirectories(root.resolve("abc-" + deadPid()).resolve("attempt-1"));
      Files.writeString(
          dir.resolve("etcd.pid"), leftover.pid() + "\n" + SLEEP + "\n", StandardCharsets.UTF_8);

      Orphans.reap(root);

      assertThat(leftover.waitFor(10, TimeUnit.SECONDS)).as("leftover stopped").isTrue();
      assertThat(dir.getParent()).doesNotExist();
    } finally {
      leftover.destroyForcibly();
    }
  }

  @Test
  void runOfALiveJvm_isLeftAlone(@TempDir Path root) throws Exception {
    Process mine = new ProcessBuilder(SLEEP, "300").start();
    try {
      Path dir = Files.createDirectories(root.resolve("abc-" + ProcessHandle.current().pid()));
      Files.writeString(
          dir.resolve("etcd.pid"), mine.pid() + "\n" + SLEEP + "\n", StandardCharsets.UTF_8);

      Orphans.reap(root);

      assertThat(mine.isAlive()).isTrue();
      assertThat(dir).exists();
    } finally {
      mine.destroyForcibly();
    }
  }

  @Test
  void pidReusedByAnotherProgram_isNotKilled(@TempDir Path root) throws Exception {
    Process unrelated = new ProcessBuilder(SLEEP, "300").start();
    try {
      Path dir = Files.createDirectories(root.resolve("abc-" + deadPid()));
      Files.writeString(
          dir.resolve("kube-apiserver.pid"),
          unrelated.pid() + "\n/nonexistent/kube-apiserver\n",
          StandardCharsets.UTF_8);

      Orphans.reap(root);

      assertThat(unrelated.isAlive()).isTrue();
      assertThat(dir).doesNotExist();
    } finally {
      unrelated.destroyForcibly();
    }
  }
}
