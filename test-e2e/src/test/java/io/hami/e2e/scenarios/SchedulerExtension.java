package io.hami.e2e.scenarios;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.e2e.ControlPlaneExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs the hami-scheduler with the shipped profile, on its own client to the shared control plane,
 * for the whole test class. Register it after {@link ControlPlaneExtension}. Tests may take the
 * running {@link Scheduler} as a parameter.
 */
final class SchedulerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(SchedulerExtension.class);

  private record Running(KubernetesClient client, Scheduler scheduler) {}

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    KubernetesClient client = ControlPlaneExtension.shared(context).newAdminClient();
    try {
      context.getStore(STORE).put(Running.class, new Running(client, Scheduler.start(client)));
    } catch (Exception e) {
      client.close();
      throw e;
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Scheduler.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Running r = context.getStore(STORE).get(Running.class, Running.class);
    if (r == null) {
      throw new ParameterResolutionException("no scheduler runs for " + parameter.getParameter());
    }
    return r.scheduler();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Running r = context.getStore(STORE).remove(Running.class, Running.class);
    if (r != null) {
      try {
        r.scheduler().close();
      } finally {
        r.client().close();
      }
    }
  }
}
