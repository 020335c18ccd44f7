package io.hami.model.config;

import java.util.List;

/**
 * Which MIG profiles dynamic MIG may create on which GPU models.
 *
 * @param models GPU model strings the entry applies to
 * @param profiles profile names allowed on them
 */
public record MigAllowlistEntry(List<String> models, List<String> profiles) {
  public MigAllowlistEntry {
    models = List.copyOf(models);
    profiles = List.copyOf(profiles);
  }
}
