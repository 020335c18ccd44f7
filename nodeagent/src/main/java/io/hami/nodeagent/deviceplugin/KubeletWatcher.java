package io.hami.nodeagent.deviceplugin;

import com.google.common.util.concurrent.AbstractExecutionThreadService;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts the device plugin when kubelet re-creates {@code kubelet.sock} (kubelet restarted and
 * forgot its plugins), and retries a failed registration every {@code retry}.
 */
public final class KubeletWatcher extends AbstractExecutionThreadService {
  private static final Logger log = LoggerFactory.getLogger(KubeletWatcher.class);

  private final Path deviceDir;
  private final DevicePluginServer server;
  private final Duration retry;
  private @Nullable WatchService watcher;

  public KubeletWatcher(Path deviceDir, DevicePluginServer server, Duration retry) {
    this.deviceDir = deviceDir;
    this.server = server;
    this.retry = retry;
  }

  @Override
  protected void startUp() throws IOException {
    Files.createDirectories(deviceDir);
    WatchService w = FileSystems.getDefault().newWatchService();
    deviceDir.register(w, StandardWatchEventKinds.ENTRY_CREATE);
    watcher = w;
  }

  @Override
  protected void run() throws IOException {
    WatchService w = watcher;
    while (isRunning() && w != null) {
      WatchKey key;
      try {
        key = w.poll(retry.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      }
      if (key == null) {
        server.retryRegistration();
        continue;
      }
      boolean kubeletRestarted = false;
      for (WatchEvent<?> ev : key.pollEvents()) {
        if (ev.context() instanceof Path p
            && p.toString().equals(DevicePluginServer.KUBELET_SOCKET)) {
          kubeletRestarted = true;
        }
      }
      key.reset();
      if (kubeletRestarted) {
        log.info(
            "{} created: kubelet restarted, registering again", DevicePluginServer.KUBELET_SOCKET);
        try {
          server.restart();
        } catch (IOException | RuntimeException e) {
          log.error("device plugin restart failed", e);
        }
      }
    }
  }

  @Override
  protected void triggerShutdown() {
    WatchService w = watcher;
    if (w != null) {
      try {
        w.close();
      } catch (IOException e) {
        // Closing only wakes the loop.
      }
    }
  }

  @Override
  protected String serviceName() {
    return "KubeletWatcher";
  }
}
