package io.hami.framework.api;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;

/**
 * A host port a pod claims on its node. An empty or {@code 0.0.0.0} IP means every address.
 *
 * @param protocol TCP, UDP or SCTP
 * @param ip the host IP, {@code 0.0.0.0} for all
 * @param port the host port, above zero
 */
public record HostPort(String protocol, String ip, int port) {
  public static final String ANY_IP = "0.0.0.0";

  /** Returns whether this and {@code other} cannot both be bound on one node. */
  public boolean conflictsWith(HostPort other) {
    return port == other.port
        && protocol.equals(other.protocol)
        && (ip.equals(other.ip) || ANY_IP.equals(ip) || ANY_IP.equals(other.ip));
  }

  /** Returns the host ports that the pod's containers (and init containers) declare. */
  public static List<HostPort> forPod(Pod pod) {
    if (pod.getSpec() == null) {
      return List.of();
    }
    List<HostPort> out = null;
    for (List<Container> cs :
        List.of(
            nullToEmpty(pod.getSpec().getContainers()),
            nullToEmpty(pod.getSpec().getInitContainers()))) {
      for (Container c : cs) {
        if (c.getPorts() == null) {
          continue;
        }
        for (ContainerPort p : c.getPorts()) {
          if (p.getHostPort() == null || p.getHostPort() <= 0) {
            continue;
          }
          if (out == null) {
            out = new ArrayList<>(2);
          }
          String protocol = p.getProtocol() == null ? "TCP" : p.getProtocol();
          String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? ANY_IP : p.getHostIP();
          out.add(new HostPort(protocol, ip, p.getHostPort()));
        }
      }
    }
    return out == null ? List.of() : List.copyOf(out);
  }

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
