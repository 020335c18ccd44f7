package io.hami.cmd.up;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns SIGINT and SIGTERM into a call instead of a JVM exit, so the playground is stopped in order
 * (nodes before the apiserver they talk to) by the thread that owns it. Uses {@code
 * sun.misc.Signal} (module jdk.unsupported) through reflection; where it is missing the JVM's
 * default handling, with its shutdown hooks, stays.
 */
final class StopSignals {
  private StopSignals() {}

  /** Installs {@code onSignal} for INT and TERM; returns the signals handled. */
  static List<String> install(Runnable onSignal) {
    List<String> handled = new ArrayList<>();
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Object proxy =
          Proxy.newProxyInstance(
              handler.getClassLoader(),
              new Class<?>[] {handler},
              (self, method, args) -> {
                switch (method.getName()) {
                  case "handle" -> {
                    onSignal.run();
                    return null;
                  }
                  case "hashCode" -> {
                    return System.identityHashCode(self);
                  }
                  case "equals" -> {
                    return self == args[0];
                  }
                  default -> {
                    return "hami-up-stop";
                  }
                }
              });
      Method handle = signal.getMethod("handle", signal, handler);
      for (String name : List.of("INT", "TERM")) {
        try {
          handle.invoke(null, signal.getConstructor(String.class).newInstance(name), proxy);
          handled.add(name);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
          // This signal stays with the JVM (e.g. INT ignored in a background job).
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // No sun.misc.Signal: the shutdown hooks still clean up.
    }
    return handled;
  }
}
