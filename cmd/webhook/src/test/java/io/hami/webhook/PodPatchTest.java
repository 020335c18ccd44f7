package io.hami.webhook;

import static io.hami.webhook.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.zjsonpatch.JsonPatch;
import io.hami.webhook.PodPatch.ContainerRef;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class PodPatchTest {

  private static final ContainerRef C0 = new ContainerRef(false, 0, "c");

  private static PodPatch patchOf(String pod) {
    return new PodPatch((ObjectNode) json(pod));
  }

  private static void assertApplies(PodPatch p, String original) {
    assertThat(JsonPatch.apply(p.operations(), json(original))).isEqualTo(p.patched());
  }

  @Test
  void setLimit_createsResourcesWhenAbsent() {
    String pod = "{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
    PodPatch p = patchOf(pod);
    p.setLimit(C0, "nvidia.com/gpu", "1");
    p.setLimit(C0, "nvidia.com/gpucores", "100");
    assertThat(p.operations())
        .isEqualTo(
            json(
                "["
                    + "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources\","
                    + "\"value\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}},"
                    + "{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/nvidia.com~1gpucores\","
                    + "\"value\":\"100\"}]"));
    assertApplies(p, pod);
  }

  @Test
  void setLimit_sameValueRecordsNothing() {
    PodPatch p =
        patchOf(
            "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"x/y\":\"1\"}}}]}}");
    p.setLimit(C0, "x/y", "1");
    assertThat(p.isEmpty()).isTrue();
  }

  @Test
  void setLimit_replacesAnotherValueWithAdd() {
    String pod =
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"x/y\":\"1\"}}}]}}";
    PodPatch p = patchOf(pod);
    p.setLimit(C0, "x/y", "2");
    assertThat(p.operations())
        .isEqualTo(
            json(
                "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources/limits/x~1y\",\"value\":\"2\"}]"));
    assertApplies(p, pod);
  }

  @Test
  void setLimit_nullLimitsAreReplaced() {
    String pod = "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":null}}]}}";
    PodPatch p = patchOf(pod);
    p.setLimit(C0, "a/b", "3");
    assertThat(p.patched().at("/spec/containers/0/resources/limits/a~1b").asString())
        .isEqualTo("3");
    assertApplies(p, pod);
  }

  @Test
  void setEnv_appendsThenReplacesValueFrom() {
    String pod =
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[{\"name\":\"A\","
            + "\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]}]}}";
    PodPatch p = patchOf(pod);
    p.setEnv(C0, "B", "2");
    p.setEnv(C0, "A", "1");
    p.setEnv(C0, "B", "2");
    assertThat(p.operations())
        .isEqualTo(
            json(
                "["
                    + "{\"op\":\"add\",\"path\":\"/spec/containers/0/env/-\",\"value\":{\"name\":\"B\",\"value\":\"2\"}},"
                    + "{\"op\":\"replace\",\"path\":\"/spec/containers/0/env/0\",\"value\":{\"name\":\"A\",\"value\":\"1\"}}]"));
    assertApplies(p, pod);
  }

  @Test
  void setSpecField_escapesAndSkipsSameValue() {
    String pod = "{\"spec\":{\"schedulerName\":\"s\",\"containers\":[]}}";
    PodPatch p = patchOf(pod);
    p.setSpecField("schedulerName", "s");
    assertThat(p.isEmpty()).isTrue();
    p.setSpecField("schedulerName", "t");
    assertApplies(p, pod);
    assertThat(PodPatch.escape("a~b/c")).isEqualTo("a~0b~1c");
  }

  @Test
  void wrongContainer_isABug() {
    PodPatch p = patchOf("{\"spec\":{\"containers\":[{\"name\":\"other\"}]}}");
    assertThatThrownBy(() -> p.setEnv(C0, "A", "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no container c at /spec/containers/0");
  }
}
