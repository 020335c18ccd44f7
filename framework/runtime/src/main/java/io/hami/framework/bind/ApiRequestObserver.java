package io.hami.framework.bind;

/** Counts API requests for metrics: verb, resource and outcome ({@code ok} or an HTTP code). */
@FunctionalInterface
public interface ApiRequestObserver {

  void request(String verb, String resource, String outcome);

  static ApiRequestObserver none() {
    return (v, r, o) -> {};
  }
}
