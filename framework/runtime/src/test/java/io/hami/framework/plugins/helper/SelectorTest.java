package io.hami.framework.plugins.helper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SelectorTest {

  record Case(
      String name, @Nullable LabelSelector selector, Map<String, String> labels, boolean matches) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static LabelSelectorBuilder sel() {
    return new LabelSelectorBuilder();
  }

  static Stream<Case> cases() {
    Map<String, String> app = Map.of("app", "web", "tier", "front");
    return Stream.of(
        new Case("null matches nothing", null, app, false),
        new Case("empty matches everything", sel().build(), app, true),
        new Case("matchLabels hit", sel().addToMatchLabels("app", "web").build(), app, true),
        new Case("matchLabels miss", sel().addToMatchLabels("app", "db").build(), app, false),
        new Case(
            "In",
            sel()
                .addNewMatchExpression()
                .withKey("app")
                .withOperator("In")
                .withValues("web", "x")
                .endMatchExpression()
                .build(),
            app,
            true),
        new Case(
            "NotIn on a missing key holds",
            sel()
                .addNewMatchExpression()
                .withKey("zone")
                .withOperator("NotIn")
                .withValues("a")
                .endMatchExpression()
                .build(),
            app,
            true),
        new Case(
            "Exists",
            sel()
                .addNewMatchExpression()
                .withKey("tier")
                .withOperator("Exists")
                .endMatchExpression()
                .build(),
            app,
            true),
        new Case(
            "DoesNotExist",
            sel()
                .addNewMatchExpression()
                .withKey("tier")
                .withOperator("DoesNotExist")
                .endMatchExpression()
                .build(),
            app,
            false));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void matches(Case c) {
    assertThat(Selector.of(c.selector(), "s").matches(c.labels())).isEqualTo(c.matches());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void labelSelectors_treatsNullAsAny(Case c) {
    boolean expected = c.selector() == null || c.matches();
    assertThat(LabelSelectors.matches(c.selector(), c.labels())).isEqualTo(expected);
  }

  @Test
  void malformed_namesFieldAndValue() {
    assertThatThrownBy(
            () ->
                Selector.of(
                    sel()
                        .addNewMatchExpression()
                        .withKey("a")
                        .withOperator("Like")
                        .endMatchExpression()
                        .build(),
                    "spec.x"))
        .hasMessage(
            "spec.x.matchExpressions[0].operator: invalid value \"Like\": must be one of In,"
                + " NotIn, Exists, DoesNotExist");
    assertThatThrownBy(
            () ->
                Selector.of(
                    sel()
                        .addNewMatchExpression()
                        .withKey("a")
                        .withOperator("In")
                        .endMatchExpression()
                        .build(),
                    "spec.x"))
        .hasMessageContaining("spec.x.matchExpressions[0].values");
  }

  @Test
  void and_keepsNothingAndEqualityIgnoresOrder() {
    Selector a = Selector.ofLabels(Map.of("x", "1", "y", "2"));
    Selector b = Selector.ofLabels(Map.of("y", "2")).and(Selector.ofLabels(Map.of("x", "1")));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(Selector.NOTHING.and(a)).isSameAs(Selector.NOTHING);
    assertThat(Selector.of(List.of())).isSameAs(Selector.EVERYTHING);
    assertThat(Selector.EVERYTHING.isEmpty()).isTrue();
  }
}
