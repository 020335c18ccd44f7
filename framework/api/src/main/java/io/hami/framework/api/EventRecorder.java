package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Emits Kubernetes Events. Implementations are asynchronous and rate limited: {@link #record} never
 * blocks on the API and may be called from any thread. An in-memory cluster records events in
 * memory.
 */
public interface EventRecorder {

  /** The type of an Event. */
  enum Type {
    NORMAL("Normal"),
    WARNING("Warning");

    private final String value;

    Type(String value) {
      this.value = value;
    }

    /** The value of the Event's {@code type} field. */
    public String value() {
      return value;
    }
  }

  /**
   * Records an Event about {@code regarding}.
   *
   * @param reason a CamelCase machine-readable reason ({@code FailedScheduling})
   * @param action what the scheduler did ({@code Scheduling}, {@code Binding})
   * @param note the human-readable message
   */
  void record(HasMetadata regarding, Type type, String reason, String action, String note);

  /** An event recorder that drops every event. */
  static EventRecorder discarding() {
    return (regarding, type, reason, action, note) -> {};
  }
}
