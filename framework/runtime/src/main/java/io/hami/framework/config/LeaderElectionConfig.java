package io.hami.framework.config;

import java.time.Duration;

/**
 * Where and how often the scheduler replicas compete for the Lease. Whether to compete at all is
 * the {@code --leader-elect} flag.
 */
public record LeaderElectionConfig(
    String leaseNamespace,
    String leaseName,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {

  public static LeaderElectionConfig defaults() {
    return new LeaderElectionConfig(
        "kube-system",
        "hami-scheduler",
        Duration.ofSeconds(15),
        Duration.ofSeconds(10),
        Duration.ofSeconds(2));
  }
}
