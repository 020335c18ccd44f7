package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteRetryTest {
  private final AtomicLong now = new AtomicLong();
  private final List<Long> sleeps = new ArrayList<>();
  private final List<Boolean> retries = new ArrayList<>();

  private WriteRetry retry(int attempts, Duration budget) {
    return new WriteRetry(
        attempts,
        budget,
        Duration.ofMillis(100),
        now::get,
        ms -> {
          sleeps.add(ms);
          now.addAndGet(Duration.ofMillis(ms).toNanos());
        });
  }

  /** An attempt that fails with {@code codes} in turn, then returns "ok". */
  private WriteRetry.Attempt<String> failing(int... codes) {
    return retry -> {
      retries.add(retry);
      int i = retries.size() - 1;
      if (i < codes.length) {
        throw new KubernetesClientException("injected", codes[i], null);
      }
      return "ok";
    };
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void conflict_isRetriedAsARetry_soTheAttemptReReads() {
    assertThat(retry(5, Duration.ofSeconds(10)).call(failing(409, 409))).isEqualTo("ok");
    assertThat(retries).containsExactly(false, true, true);
    assertThat(sleeps).containsExactly(100L, 200L);
  }

  @Test
  void aLostConnection_asTheClientReportsIt_isRetried() {
    // fabric8 wraps an I/O failure with code -1.
    KubernetesClientException lost =
        new KubernetesClientException("patch failed", new IOException("Connection reset"));
    assertThat(lost.getCode()).isNegative();
    assertThat(WriteRetry.isRetryable(lost)).isTrue();
    assertThat(WriteRetry.outcomeUnknown(lost)).isTrue();
    assertThat(retry(5, Duration.ofSeconds(10)).call(failing(-1, 0))).isEqualTo("ok");
    assertThat(retries).containsExactly(false, true, true);
  }

  @Test
  void refusals_areKnownOutcomes() {
    for (int code : new int[] {400, 404, 409, 422, 429}) {
      assertThat(WriteRetry.outcomeUnknown(new KubernetesClientException("x", code, null)))
          .as("%d", code)
          .isFalse();
    }
    assertThat(WriteRetry.outcomeUnknown(new KubernetesClientException("x", 504, null))).isTrue();
  }

  @Test
  void tooManyRequests_backsOffAtLeastASecond() {
    assertThat(retry(5, Duration.ofSeconds(10)).call(failing(429, 500, 0))).isEqualTo("ok");
    assertThat(sleeps).containsExactly(1000L, 200L, 400L);
  }

  @Test
  void otherFailures_areThrownAtOnce() {
    assertThatThrownBy(() -> retry(5, Duration.ofSeconds(10)).call(failing(404)))
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(404);
    assertThat(retries).hasSize(1);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void attempts_bound_theRetries() {
    assertThatThrownBy(() -> retry(3, Duration.ofSeconds(10)).call(failing(409, 409, 409, 409)))
        .isInstanceOf(KubernetesClientException.class);
    assertThat(retries).hasSize(3);
  }

  @Test
  void budget_boundsTheTotalTime_noBackoffEndsPastIt() {
    assertThatThrownBy(() -> retry(10, Duration.ofMillis(350)).call(failing(409, 409, 409, 409)))
        .isInstanceOf(KubernetesClientException.class);
    // 100 + 200 = 300 ms slept; a third backoff (400 ms) would end past 350 ms.
    assertThat(sleeps).containsExactly(100L, 200L);
    assertThat(retries).hasSize(3);
  }

  @Test
  void interrupt_endsTheRetriesAtOnce_andStaysSet() {
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> retry(5, Duration.ofSeconds(10)).call(failing(409, 409)))
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(409);
    assertThat(retries).hasSize(1);
    assertThat(sleeps).isEmpty();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void interruptDuringTheBackoff_endsTheRetries() {
    WriteRetry r =
        new WriteRetry(
            5,
            Duration.ofSeconds(10),
            Duration.ofMillis(100),
            now::get,
            ms -> {
              throw new InterruptedException();
            });
    assertThatThrownBy(() -> r.call(failing(409, 409)))
        .isInstanceOf(KubernetesClientException.class);
    assertThat(retries).hasSize(1);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }

  @Test
  void badBounds_areRejectedNamingTheValue() {
    assertThatThrownBy(() -> new WriteRetry(0, Duration.ZERO, Duration.ZERO, now::get, ms -> {}))
        .hasMessageContaining("attempts must be at least 1, was 0");
  }
}
