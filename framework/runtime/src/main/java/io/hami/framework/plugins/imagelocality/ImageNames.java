package io.hami.framework.plugins.imagelocality;

/**
 * Normalises image references so that a pod's {@code nginx} and a node's {@code
 * docker.io/library/nginx:latest} name the same image: a reference without a registry gets {@code
 * docker.io}, a one-part Docker Hub repository gets {@code library/}, and a reference with neither
 * tag nor digest gets {@code :latest} (the last is all kube-scheduler adds; the registry defaults
 * are the ones container runtimes apply, and are applied to both sides so that either spelling
 * matches).
 */
final class ImageNames {
  private static final String DOCKER_HUB = "docker.io";

  private ImageNames() {}

  static String normalize(String image) {
    String name = image.trim();
    if (name.isEmpty()) {
      return name;
    }
    int slash = name.indexOf('/');
    String domain = null;
    String path = name;
    if (slash > 0) {
      String first = name.substring(0, slash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
        domain = first;
        path = name.substring(slash + 1);
      }
    }
    if (domain == null || domain.equals("index.docker.io")) {
      domain = DOCKER_HUB;
    }
    if (domain.equals(DOCKER_HUB) && path.indexOf('/') < 0) {
      path = "library/" + path;
    }
    // A tag is a ':' after the last '/'; a digest ('@') counts as a version as well.
    if (path.indexOf('@') < 0 && path.lastIndexOf(':') <= path.lastIndexOf('/')) {
      path = path + ":latest";
    }
    return domain + "/" + path;
  }
}
