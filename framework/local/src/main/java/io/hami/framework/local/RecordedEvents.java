package io.hami.framework.local;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.EventRecorder;
import io.hami.framework.local.InMemoryCluster.RecordedEvent;
import java.util.ArrayList;
import java.util.List;

/** The in-memory cluster's Events, kept in the order the scheduler recorded them. */
final class RecordedEvents implements EventRecorder {
  private final List<RecordedEvent> events = new ArrayList<>();

  @Override
  public void record(HasMetadata regarding, Type type, String reason, String action, String note) {
    String obj = regarding.getMetadata().getNamespace() + "/" + regarding.getMetadata().getName();
    events.add(new RecordedEvent(obj, type.value(), reason, note));
  }

  List<RecordedEvent> list() {
    return List.copyOf(events);
  }
}
