package io.hami.model.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.hami.model.Decoded;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GoJsonTest {

  static Stream<Arguments> goStrings() {
    return Stream.of(
        arguments("plain", "GPU-0 a/b", "\"GPU-0 a/b\""),
        arguments("quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\""),
        arguments("short escapes", "\n\r\t", "\"\\n\\r\\t\""),
        arguments("other controls", "\u0000\b\f\u001f", "\"\\u0000\\u0008\\u000c\\u001f\""),
        arguments("HTML-safe", "<a>&", "\"\\u003ca\\u003e\\u0026\""),
        arguments("line and paragraph separators", "x\u2028y\u2029", "\"x\\u2028y\\u2029\""),
        arguments("non-ASCII as is", "\u00e9\u4e2d", "\"\u00e9\u4e2d\""),
        arguments("surrogate pair as is", "\uD83D\uDE00", "\"\uD83D\uDE00\""),
        arguments("lone surrogate", "a\uD83Db", "\"a\\ufffdb\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goStrings")
  void appendString_writesGoBytes(String name, String in, String want) {
    assertThat(GoJson.quote(in)).isEqualTo(want);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goStrings")
  void generator_writesTheSameBytes(String name, String in, String want) {
    if (name.equals("lone surrogate")) {
      return; // the generator is only handed valid UTF-16
    }
    assertThat(GoJson.write(g -> g.writeString(in))).isEqualTo(want);
  }

  @Test
  void generator_writesObjectsWithGoEscapes() {
    String json =
        GoJson.write(
            g -> {
              g.writeStartObject();
              g.writeName("a<b");
              g.writeString("x&y");
              g.writeEndObject();
            });
    assertThat(json).isEqualTo("{\"a\\u003cb\":\"x\\u0026y\"}");
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        arguments("empty", ""),
        arguments("unterminated", "[{"),
        arguments("trailing text", "[] x"),
        arguments("two values", "1 2"),
        arguments("leading zero", "01"),
        arguments("NaN", "NaN"),
        arguments("single quotes", "['a']"),
        arguments("comment", "[1 /* c */]"),
        arguments("trailing comma", "[1,]"),
        arguments("raw control character", "\"a\nb\""),
        arguments("bad escape", "\"\\x\""),
        arguments("unquoted key", "{a:1}"),
        arguments("too deep", "[".repeat(GoJson.MAX_DEPTH + 1) + "]".repeat(GoJson.MAX_DEPTH + 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejected")
  void parse_rejectsWhatGoRejects(String name, String in) {
    assertThat(GoJson.parse(in).failure().orElseThrow().message()).startsWith("invalid JSON: ");
  }

  @Test
  void parse_acceptsNestingUpToTheLimit() {
    String in = "[".repeat(GoJson.MAX_DEPTH) + "]".repeat(GoJson.MAX_DEPTH);
    assertThat(GoJson.parse(in)).isInstanceOf(Decoded.Ok.class);
  }

  @Test
  void parse_keepsNumberTextAndKind() {
    Object v =
        GoJson.parse(" [1, -0, 1.5, 2e3, 1" + "0".repeat(40) + "] ").toOptional().orElseThrow();
    assertThat(v)
        .isEqualTo(
            List.of(
                new GoJson.Num("1", true),
                new GoJson.Num("-0", true),
                new GoJson.Num("1.5", false),
                new GoJson.Num("2e3", false),
                new GoJson.Num("1" + "0".repeat(40), true)));
  }

  @Test
  void parse_keepsDuplicateKeysAndTheLastCaseInsensitiveMatchWins() {
    GoJson.Obj o =
        (GoJson.Obj)
            GoJson.parse("{\"id\":\"a\",\"ID\":\"b\",\"id\":\"c\"}").toOptional().orElseThrow();
    assertThat(o.size()).isEqualTo(3);
    assertThat(o.get("id")).isEqualTo("c");
  }

  @Test
  void parse_readsUnpairedSurrogatesAsReplacementCharacter() {
    assertThat(
            GoJson.parse("[\"a\\ud800b\",\"\\ud83d\\ude00\",\"x\uDC00\"]")
                .toOptional()
                .orElseThrow())
        .isEqualTo(List.of("a\ufffdb", "\uD83D\uDE00", "x\ufffd"));
  }

  @Test
  void parse_readsLiteralsAndEscapes() {
    assertThat(GoJson.parse("[true,false,null,\"\\u003c\\/\\b\"]").toOptional().orElseThrow())
        .isEqualTo(List.of(true, false, GoJson.NULL, "</\b"));
  }
}
