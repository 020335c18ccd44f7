package io.hami.model;

import java.util.Optional;
import java.util.function.Function;

/**
 * The result of decoding a wire value: {@link Ok} with the typed value, or {@link Err} naming the
 * bad input.
 *
 * @param <T> the decoded type
 */
public sealed interface Decoded<T> permits Decoded.Ok, Decoded.Err {

  /** A successful decode. */
  record Ok<T>(T value) implements Decoded<T> {}

  /** A failed decode. */
  record Err<T>(ProtocolError error) implements Decoded<T> {}

  static <T> Decoded<T> ok(T value) {
    return new Ok<>(value);
  }

  static <T> Decoded<T> err(ProtocolError error) {
    return new Err<>(error);
  }

  static <T> Decoded<T> err(String field, String value, String message) {
    return new Err<>(ProtocolError.of(field, value, message));
  }

  /** Whether this is {@link Ok}. */
  default boolean isOk() {
    return this instanceof Ok;
  }

  /** The value, or empty for an error. */
  default Optional<T> toOptional() {
    return this instanceof Ok<T> ok ? Optional.of(ok.value()) : Optional.empty();
  }

  /** The error, or empty for a value. */
  default Optional<ProtocolError> failure() {
    return this instanceof Err<T> err ? Optional.of(err.error()) : Optional.empty();
  }

  /** The value, or {@code other} for an error. */
  default T orElse(T other) {
    return this instanceof Ok<T> ok ? ok.value() : other;
  }

  /**
   * The value.
   *
   * @throws ProtocolException for an error
   */
  default T orElseThrow() throws ProtocolException {
    if (this instanceof Ok<T> ok) {
      return ok.value();
    }
    throw new ProtocolException(((Err<T>) this).error());
  }

  /** Applies {@code f} to a value; an error passes through. */
  @SuppressWarnings("unchecked")
  default <U> Decoded<U> map(Function<? super T, ? extends U> f) {
    return this instanceof Ok<T> ok ? new Ok<>(f.apply(ok.value())) : (Decoded<U>) this;
  }

  /** Chains a further decode step; an error passes through. */
  @SuppressWarnings("unchecked")
  default <U> Decoded<U> flatMap(Function<? super T, Decoded<U>> f) {
    return this instanceof Ok<T> ok ? f.apply(ok.value()) : (Decoded<U>) this;
  }

  /** Prefixes the field path of an error, e.g. with the annotation key it came from. */
  default Decoded<T> within(String prefix) {
    return this instanceof Err<T> err ? new Err<>(err.error().within(prefix)) : this;
  }
}
