package io.hami.framework.config;

import io.hami.framework.queue.QueueTimeouts;
import java.time.Duration;
import java.util.List;

/**
 * The scheduler's validated configuration ({@code apiVersion: hami.io/v1}, {@code kind:
 * SchedulerConfiguration}). Build it with {@link ConfigLoader}, which applies the defaults below
 * and validates every field.
 *
 * @param parallelism the bound on Filter/Score fan-out threads (default 16)
 * @param percentageOfNodesToScore 0 for adaptive (50% minus 1% per 125 nodes, at least 5%);
 *     otherwise 1..100; never fewer than 100 nodes
 * @param queueTimeouts the first backoff after a failed attempt (default 1 s), the backoff ceiling
 *     (default 10 s) and how long a pod waits for an event before a retry anyway (default 5 min)
 * @param assumedPodTtl how long an assumed, bound pod may wait for the informer to confirm it
 *     before the cache forgets it; zero means never (default)
 * @param leaderElection the Lease settings
 * @param profiles one or more profiles, distinct scheduler names
 */
public record SchedulerConfiguration(
    int parallelism,
    int percentageOfNodesToScore,
    QueueTimeouts queueTimeouts,
    Duration assumedPodTtl,
    LeaderElectionConfig leaderElection,
    List<ProfileConfig> profiles) {

  public static final String API_VERSION = "hami.io/v1";
  public static final String KIND = "SchedulerConfiguration";
  public static final String DEFAULT_SCHEDULER_NAME = "hami-scheduler";

  public SchedulerConfiguration {
    profiles = List.copyOf(profiles);
  }

  /** The default configuration: one profile {@code hami-scheduler} with the default plugins. */
  public static SchedulerConfiguration defaults() {
    return new SchedulerConfiguration(
        16,
        0,
        new QueueTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMinutes(5)),
        Duration.ZERO,
        LeaderElectionConfig.defaults(),
        List.of(ProfileConfig.defaults(DEFAULT_SCHEDULER_NAME)));
  }

  /** First backoff after a failed attempt. */
  public Duration podInitialBackoff() {
    return queueTimeouts.initialBackoff();
  }

  /** Backoff ceiling. */
  public Duration podMaxBackoff() {
    return queueTimeouts.maxBackoff();
  }

  /** How long a pod waits for an event before a retry anyway. */
  public Duration podMaxInUnschedulablePods() {
    return queueTimeouts.maxInUnschedulable();
  }

  public SchedulerConfiguration withProfiles(List<ProfileConfig> newProfiles) {
    return new SchedulerConfiguration(
        parallelism,
        percentageOfNodesToScore,
        queueTimeouts,
        assumedPodTtl,
        leaderElection,
        newProfiles);
  }

  public SchedulerConfiguration withParallelism(int newParallelism) {
    return new SchedulerConfiguration(
        newParallelism,
        percentageOfNodesToScore,
        queueTimeouts,
        assumedPodTtl,
        leaderElection,
        profiles);
  }
}
