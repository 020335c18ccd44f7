package io.hami.e2e.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * What {@link ChaosE2E} does: its settings, read from system properties and checked, and the seeded
 * fault schedule they give.
 *
 * @param seed the schedule's seed ({@code hami.chaos.seed})
 * @param phase how long pods are created and faults injected ({@code hami.chaos.seconds})
 * @param faults how many faults ({@code hami.chaos.faults})
 * @param rate pods created per second ({@code hami.chaos.rate})
 * @param nodes GPU nodes, each with its node agent ({@code hami.chaos.nodes})
 * @param podTtl while pods are created, a pending pod older than this is deleted, as impatient
 *     users do, so that the backlog stays bounded ({@code hami.chaos.podTtlSeconds})
 * @param settle the most the settle phase waits in all ({@code hami.chaos.settleSeconds})
 */
record ChaosPlan(
    long seed, Duration phase, int faults, int rate, int nodes, Duration podTtl, Duration settle) {
  static final long DEFAULT_SEED = 4;
  static final int DEFAULT_RATE = 5;

  ChaosPlan {
    check("hami.chaos.seconds", phase.getSeconds(), 10);
    check("hami.chaos.faults", faults, 0);
    check("hami.chaos.rate", rate, 1);
    check("hami.chaos.nodes", nodes, 1);
    check("hami.chaos.podTtlSeconds", podTtl.getSeconds(), 1);
    check("hami.chaos.settleSeconds", settle.getSeconds(), 10);
  }

  /** The plan the system properties ask for, the CI defaults where they say nothing. */
  static ChaosPlan fromSystemProperties() {
    return new ChaosPlan(
        longProperty("hami.chaos.seed", DEFAULT_SEED),
        Duration.ofSeconds(longProperty("hami.chaos.seconds", 120)),
        (int) longProperty("hami.chaos.faults", 20),
        (int) longProperty("hami.chaos.rate", DEFAULT_RATE),
        (int) longProperty("hami.chaos.nodes", 4),
        Duration.ofSeconds(longProperty("hami.chaos.podTtlSeconds", 20)),
        Duration.ofSeconds(longProperty("hami.chaos.settleSeconds", 240)));
  }

  /** What can be killed. */
  enum Target {
    SCHEDULER,
    AGENT,
    APISERVER,
    ETCD
  }

  /** One planned fault: when (from the start of the workload), what, and how long it stays down. */
  record Fault(long atMillis, Target target, int agentIndex, long downMillis) {}

  /** The seeded schedule: the faults at random times, each kind about as often. */
  List<Fault> schedule() {
    Random r = new Random(seed);
    List<Target> kinds = new ArrayList<>();
    for (int i = 0; i < faults; i++) {
      kinds.add(Target.values()[i % Target.values().length]);
    }
    Collections.shuffle(kinds, r);
    long phaseMillis = phase.toMillis();
    List<Long> times = new ArrayList<>();
    long first = Math.min(10_000, phaseMillis / 10);
    for (int i = 0; i < faults; i++) {
      times.add(first + (long) (r.nextDouble() * (phaseMillis - first)));
    }
    Collections.sort(times);
    List<Fault> out = new ArrayList<>();
    for (int i = 0; i < faults; i++) {
      out.add(new Fault(times.get(i), kinds.get(i), r.nextInt(nodes), 200 + r.nextInt(2800)));
    }
    return out;
  }

  private static long longProperty(String name, long fallback) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "system property " + name + " must be a whole number, was \"" + v + "\"", e);
    }
  }

  private static void check(String property, long value, long least) {
    if (value < least) {
      throw new IllegalArgumentException(
          "system property " + property + " must be at least " + least + ", was " + value);
    }
  }
}
