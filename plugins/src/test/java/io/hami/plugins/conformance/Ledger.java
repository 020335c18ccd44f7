package io.hami.plugins.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.hami.model.Decoded;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * The verdicts of one conformance test class: per HAMi function, the records replayed, those where
 * our answer equals HAMi's, and those where it differs on purpose.
 *
 * <p>A difference is allowed only where a {@link Deliberate} exception's predicate selects the
 * record's input, and there our answer must differ (a predicate that selects an agreeing record is
 * too broad). {@link #assertEveryExceptionHit} then checks that each exception was needed.
 */
final class Ledger {

  /** What a refused or failed call answers, on either side. */
  static final String ERROR = "<error>";

  /**
   * A difference from HAMi kept on purpose.
   *
   * @param fn the HAMi function
   * @param reason why ours differs
   * @param applies selects the records (by their {@code in}) where ours differs
   */
  record Deliberate(String fn, String reason, Predicate<JsonNode> applies) {}

  private final List<Deliberate> deliberate;
  private final Map<String, int[]> tally = new LinkedHashMap<>();
  private final Map<Deliberate, Integer> hits = new LinkedHashMap<>();

  Ledger(Deliberate... deliberate) {
    this.deliberate = List.of(deliberate);
    for (Deliberate d : deliberate) {
      hits.put(d, 0);
    }
  }

  /** HAMi's answer: {@link #ERROR} when {@code err} is non-nil, else {@code value}. */
  static Object hami(JsonNode err, Object value) {
    return GoValues.isError(err) ? ERROR : value;
  }

  /** Our answer: {@link #ERROR} for a decode error, else the value. */
  static Object ours(Decoded<?> d) {
    return d.isOk() ? d.orElse(null) : ERROR;
  }

  /** Compares our answer with HAMi's for one record. */
  synchronized void check(HamiRecords.Record r, Object hami, Object ours) {
    int[] t = tally.computeIfAbsent(r.fn(), k -> new int[3]);
    t[0]++;
    boolean agrees = Objects.equals(hami, ours);
    Deliberate d =
        deliberate.stream()
            .filter(x -> x.fn().equals(r.fn()) && x.applies().test(r.in()))
            .findFirst()
            .orElse(null);
    if (d == null) {
      if (!agrees) {
        fail(describe("ours differs from HAMi", r, hami, ours));
      }
      t[1]++;
      return;
    }
    if (agrees) {
      fail(
          describe(
              "deliberate exception \"" + d.reason() + "\" selects an agreeing record",
              r,
              hami,
              ours));
    }
    t[2]++;
    hits.merge(d, 1, Integer::sum);
  }

  private static String describe(String what, HamiRecords.Record r, Object hami, Object ours) {
    return what
        + ": "
        + r.fn()
        + " "
        + r.name()
        + " ("
        + r.site()
        + ")\n  in:   "
        + r.in()
        + "\n  HAMi: "
        + hami
        + "\n  ours: "
        + ours;
  }

  /** Fails unless every deliberate exception was hit; prints the tally. */
  synchronized void assertEveryExceptionHit() {
    StringBuilder b =
        new StringBuilder("HAMi v2.10 conformance (replayed / agreed / deliberate):\n");
    tally.forEach(
        (fn, t) -> b.append(String.format("  %-40s %5d %5d %5d%n", fn, t[0], t[1], t[2])));
    hits.forEach(
        (d, n) -> b.append(String.format("  deliberate %-4d %s: %s%n", n, d.fn(), d.reason())));
    System.out.print(b);
    // Only the functions this run replayed: a run of one test method checks that method's list.
    hits.forEach(
        (d, n) -> {
          if (tally.containsKey(d.fn())) {
            assertThat(n).as("deliberate exception never hit: %s", d.reason()).isPositive();
          }
        });
  }
}
