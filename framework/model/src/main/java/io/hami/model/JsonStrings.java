package io.hami.model;

import io.hami.model.internal.GoJson;

/**
 * JSON string literals as Go's encoder writes them, for every module that builds JSON by hand
 * (merge patches, reports). One escaper keeps the bytes the scheduler and the node agent send
 * identical to HAMi's.
 */
public final class JsonStrings {

  private JsonStrings() {}

  /** {@code s} as a JSON string literal, quotes included. */
  public static String quote(String s) {
    return GoJson.quote(s);
  }

  /** Appends {@code s} as a JSON string literal, quotes included, and returns {@code b}. */
  public static StringBuilder append(StringBuilder b, String s) {
    return GoJson.appendString(b, s);
  }
}
