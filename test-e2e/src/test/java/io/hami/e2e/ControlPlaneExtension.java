package io.hami.e2e;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hami.cmd.cluster.ControlPlane;
import io.hami.cmd.cluster.ControlPlaneOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Gives each test class a real control plane, an admin {@link KubernetesClient} and a fresh {@link
 * TestNamespace}, injected as parameters of lifecycle and test methods. One control plane, with a
 * kube-controller-manager, is shared by every class of the run (started on first use, stopped when
 * the run ends); classes that must restart or break it start their own {@link ControlPlane}.
 *
 * <p>When a test, or a class-level callback, fails, diagnostics are saved under {@code
 * target/diagnostics/<class>/<test>/}: the failure, events and pods of the namespace, all nodes and
 * every component log.
 */
public final class ControlPlaneExtension
    implements BeforeAllCallback, AfterAllCallback, TestWatcher, ParameterResolver {
  /** System property naming the test-e2e module directory; failsafe sets it. */
  public static final String MODULE_DIR_PROPERTY = "hami.e2e.moduleDir";

  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(ControlPlaneExtension.class);

  /** The run-wide control plane, closed by JUnit when the root context closes. */
  private record Shared(ControlPlane controlPlane) implements AutoCloseable {
    @Override
    public void close() {
      controlPlane.close();
    }
  }

  /** Per-class state, closed by JUnit after {@code afterAll}. */
  private record ClassState(
      ControlPlane controlPlane, KubernetesClient client, TestNamespace namespace)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        if (controlPlane.isRunning()) {
          namespace.delete(client);
        }
      } finally {
        client.close();
      }
    }
  }

  /** The module directory of the e2e suite: the failsafe property, else the working directory. */
  public static Path moduleDir() {
    String dir = System.getProperty(MODULE_DIR_PROPERTY);
    Path cwd = Path.of("").toAbsolutePath();
    if (dir != null && !dir.isBlank()) {
      return Path.of(dir);
    }
    return cwd.resolve("bin/build-control-plane.sh").toFile().exists()
        ? cwd
        : cwd.resolve("test-e2e");
  }

  /** The control plane shared by the run, started on first call. */
  public static ControlPlane shared(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent(
            Shared.class,
            k -> {
              try {
                return new Shared(
                    ControlPlane.start(
                        ControlPlaneOptions.defaults(moduleDir()).withControllerManager(true)));
              } catch (IOException e) {
                throw new UncheckedIOException("control plane did not start: " + e.getMessage(), e);
              }
            },
            Shared.class)
        .controlPlane();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    ControlPlane cp = shared(context);
    KubernetesClient client = cp.newAdminClient();
    try {
      TestNamespace ns = TestNamespace.create(client, context.getRequiredTestClass());
      context.getStore(STORE).put(ClassState.class, new ClassState(cp, client, ns));
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    context.getExecutionException().ifPresent(e -> saveDiagnostics(context, "class", e));
  }

  @Override
  public void testFailed(ExtensionContext context, @Nullable Throwable cause) {
    saveDiagnostics(
        context, context.getRequiredTestMethod().getName() + displaySuffix(context), cause);
  }

  private static String displaySuffix(ExtensionContext context) {
    // Parameterized invocations share a method; the display name tells them apart.
    String display = context.getDisplayName();
    String method = context.getRequiredTestMethod().getName();
    return display.startsWith(method + "(") ? "" : "-" + display;
  }

  private static void saveDiagnostics(
      ExtensionContext context, String what, @Nullable Throwable cause) {
    Optional<ClassState> state =
        Optional.ofNullable(context.getStore(STORE).get(ClassState.class, ClassState.class));
    Shared shared = context.getRoot().getStore(STORE).get(Shared.class, Shared.class);
    Path dir =
        moduleDir()
            .resolve("target/diagnostics")
            .resolve(Diagnostics.safeName(context.getRequiredTestClass().getSimpleName()))
            .resolve(Diagnostics.safeName(what));
    Diagnostics.save(
        dir,
        cause,
        shared == null ? null : shared.controlPlane(),
        state.map(ClassState::client).orElse(null),
        state.map(ClassState::namespace).orElse(null));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == KubernetesClient.class
        || type == TestNamespace.class
        || type == ControlPlane.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ClassState state = context.getStore(STORE).get(ClassState.class, ClassState.class);
    if (state == null) {
      throw new ParameterResolutionException(
          "no control plane for "
              + parameter.getParameter()
              + "; register ControlPlaneExtension on the class");
    }
    Class<?> type = parameter.getParameter().getType();
    if (type == KubernetesClient.class) {
      return state.client();
    }
    if (type == TestNamespace.class) {
      return state.namespace();
    }
    return state.controlPlane();
  }
}
