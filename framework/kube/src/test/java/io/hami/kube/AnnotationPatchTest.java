package io.hami.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AnnotationPatchTest {

  private static Map<String, @Nullable String> annotations(@Nullable String... kv) {
    Map<String, @Nullable String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "set, guarded",
            annotations("a/b", "v"),
            "42",
            "{\"metadata\":{\"annotations\":{\"a/b\":\"v\"},\"resourceVersion\":\"42\"}}"),
        Arguments.of(
            "delete, guarded",
            annotations("a/b", null),
            "7",
            "{\"metadata\":{\"annotations\":{\"a/b\":null},\"resourceVersion\":\"7\"}}"),
        Arguments.of(
            "unguarded",
            annotations("k", "v"),
            null,
            "{\"metadata\":{\"annotations\":{\"k\":\"v\"}}}"),
        Arguments.of(
            "several, in map order",
            annotations("x", "1", "y", null, "z", "3"),
            "1",
            "{\"metadata\":{\"annotations\":{\"x\":\"1\",\"y\":null,\"z\":\"3\"},\"resourceVersion\":\"1\"}}"),
        Arguments.of("none", annotations(), null, "{\"metadata\":{\"annotations\":{}}}"),
        Arguments.of(
            "quotes, backslashes and control characters escaped",
            annotations("k\"", "a\\b\n\"c\""),
            "9\"",
            "{\"metadata\":{\"annotations\":{\"k\\\"\":\"a\\\\b\\n\\\"c\\\"\"},\"resourceVersion\":\"9\\\"\"}}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void writesTheMergePatch(
      String name, Map<String, @Nullable String> annotations, @Nullable String rv, String want) {
    assertThat(AnnotationPatch.of(annotations, rv)).isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void oneKeyMatchesTheMap(
      String name, Map<String, @Nullable String> annotations, @Nullable String rv, String want) {
    if (annotations.size() == 1) {
      Map.Entry<String, @Nullable String> e = annotations.entrySet().iterator().next();
      assertThat(AnnotationPatch.of(e.getKey(), e.getValue(), rv)).isEqualTo(want);
    }
  }
}
