package io.hami.nodeagent.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class UnixSocketsIT {
  @TempDir Path dir;

  @Test
  void connectionOverAUnixSocket_logsNoUnknownOptionWarning() throws Exception {
    Logger netty = (Logger) LoggerFactory.getLogger("io.netty");
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    Level level = netty.getLevel();
    netty.setLevel(Level.WARN); // the test logging config quiets netty
    netty.addAppender(seen);
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    Path socket = dir.resolve("test.sock");
    Server server =
        UnixSockets.serve(socket, group, () -> ServerServiceDefinition.builder("test").build());
    ManagedChannel channel = UnixSockets.channel(socket, group);
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> channel.getState(true) == ConnectivityState.READY);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
      netty.detachAppender(seen);
      netty.setLevel(level);
    }
    assertThat(seen.list)
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
  }
}
