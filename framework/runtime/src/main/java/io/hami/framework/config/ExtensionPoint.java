package io.hami.framework.config;

import io.hami.framework.api.BindPlugin;
import io.hami.framework.api.FilterPlugin;
import io.hami.framework.api.PermitPlugin;
import io.hami.framework.api.Plugin;
import io.hami.framework.api.PostBindPlugin;
import io.hami.framework.api.PostFilterPlugin;
import io.hami.framework.api.PreBindPlugin;
import io.hami.framework.api.PreEnqueuePlugin;
import io.hami.framework.api.PreFilterPlugin;
import io.hami.framework.api.PreScorePlugin;
import io.hami.framework.api.QueueSortPlugin;
import io.hami.framework.api.ReservePlugin;
import io.hami.framework.api.ScorePlugin;

/** The extension points, with their YAML field names and plugin interfaces. */
public enum ExtensionPoint {
  QUEUE_SORT("queueSort", QueueSortPlugin.class),
  PRE_ENQUEUE("preEnqueue", PreEnqueuePlugin.class),
  PRE_FILTER("preFilter", PreFilterPlugin.class),
  FILTER("filter", FilterPlugin.class),
  POST_FILTER("postFilter", PostFilterPlugin.class),
  PRE_SCORE("preScore", PreScorePlugin.class),
  SCORE("score", ScorePlugin.class),
  RESERVE("reserve", ReservePlugin.class),
  PERMIT("permit", PermitPlugin.class),
  PRE_BIND("preBind", PreBindPlugin.class),
  BIND("bind", BindPlugin.class),
  POST_BIND("postBind", PostBindPlugin.class);

  private final String yamlName;
  private final Class<? extends Plugin> type;

  ExtensionPoint(String yamlName, Class<? extends Plugin> type) {
    this.yamlName = yamlName;
    this.type = type;
  }

  /** The field name under {@code plugins:} and the metric label. */
  public String yamlName() {
    return yamlName;
  }

  /** The interface a plugin enabled at this point must implement. */
  public Class<? extends Plugin> type() {
    return type;
  }

  public boolean isImplementedBy(Plugin p) {
    return type.isInstance(p);
  }
}
