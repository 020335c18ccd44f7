package io.hami.plugins.vgpu;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.hami.framework.api.EventRecorder;
import io.hami.model.ProtocolError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a pod's owner that one of its annotations cannot be used: a log line and a Warning Event on
 * the pod naming the annotation and its value. Each pod, key and value is reported once, since the
 * same pod is read again on every update and every scheduling attempt.
 */
final class PodAnnotationWarnings {
  static final String REASON = "InvalidPodAnnotation";
  private static final Logger log = LoggerFactory.getLogger(PodAnnotationWarnings.class);

  /** Bounds memory; a pod forgotten here is at worst reported once more. */
  private static final int REMEMBERED = 10_000;

  private final EventRecorder recorder;
  private final Cache<String, Boolean> reported =
      Caffeine.newBuilder().maximumSize(REMEMBERED).build();

  PodAnnotationWarnings(EventRecorder recorder) {
    this.recorder = requireNonNull(recorder, "recorder");
  }

  /**
   * Reports {@code key} of {@code pod} holding {@code value}, unless already reported.
   *
   * @param problem what is wrong with the value, e.g. {@code unknown policy}
   * @param consequence what the scheduler does instead
   */
  void warn(HasMetadata pod, String key, String value, String problem, String consequence) {
    String uid = pod.getMetadata().getUid();
    String id =
        (uid == null ? pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() : uid)
            + '\0'
            + key
            + '\0'
            + value;
    if (reported.asMap().putIfAbsent(id, Boolean.TRUE) != null) {
      return;
    }
    String shown = ProtocolError.of(key, value, "").value();
    String note = key + "=\"" + shown + "\": " + problem + "; " + consequence;
    log.warn(
        "pod annotation unusable pod={}/{} {}",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        note);
    recorder.record(pod, EventRecorder.Type.WARNING, REASON, "Scheduling", note);
  }
}
