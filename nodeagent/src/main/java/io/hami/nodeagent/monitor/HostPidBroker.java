package io.hami.nodeagent.monitor;

import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.AbstractIdleService;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.PeerCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host-pid broker libvgpu asks (its {@code src/hostpid.c}, enabled in containers by {@code
 * LIBVGPU_HOSTPID_BROKER=1}): a container process connects to the Unix socket, sends {@code "HPID"}
 * with version 1 and command 1 (u16, big-endian), and gets back {@code "HPID"}, version, status and
 * its pid as the kernel translates {@code SO_PEERCRED} into the agent's pid namespace, which is the
 * host's when the agent runs with {@code hostPID}. Nothing the client says is trusted except the
 * request's shape; every connection gets one answer and is closed.
 *
 * <p>Statuses: {@value #OK} ok; {@value #BAD_REQUEST} not a request ("HPID" missing); {@value
 * #BAD_VERSION} version other than 1; {@value #BAD_COMMAND} unknown command; {@value #NO_PID} the
 * peer's pid is not visible here (the agent is not in the host's pid namespace).
 */
public final class HostPidBroker extends AbstractIdleService {
  private static final Logger log = LoggerFactory.getLogger(HostPidBroker.class);

  static final int OK = 0;
  static final int BAD_REQUEST = 1;
  static final int BAD_VERSION = 2;
  static final int BAD_COMMAND = 3;
  static final int NO_PID = 4;

  private static final int MAGIC = 0x48504944; // "HPID"
  private static final int VERSION = 1;
  private static final int COMMAND_HOST_PID = 1;
  private static final int REQUEST_SIZE = 8;
  private static final long READ_TIMEOUT_MS = 2000;

  private final Path socket;
  private @Nullable EventLoopGroup group;
  private @Nullable Channel server;

  public HostPidBroker(Path socket) {
    this.socket = requireNonNull(socket, "socket");
  }

  public Path socket() {
    return socket;
  }

  @Override
  protected void startUp() throws Exception {
    Path dir = socket.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    // A socket left by a previous agent on this node: binding would fail on it.
    Files.deleteIfExists(socket);
    EventLoopGroup g = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    try {
      server =
          new ServerBootstrap()
              .group(g)
              .channel(EpollServerDomainSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<EpollDomainSocketChannel>() {
                    @Override
                    protected void initChannel(EpollDomainSocketChannel ch) {
                      ch.pipeline().addLast(new Handler());
                    }
                  })
              .bind(new DomainSocketAddress(socket.toString()))
              .sync()
              .channel();
      // Every container user may ask; the answer is only the asker's own pid.
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    } catch (Exception e) {
      g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
    group = g;
    log.info("host-pid broker listening on {}", socket);
  }

  @Override
  protected void shutDown() throws IOException {
    if (server != null) {
      server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    Files.deleteIfExists(socket);
  }

  @Override
  protected String serviceName() {
    return "HostPidBroker";
  }

  /** The answer to one request of {@value #REQUEST_SIZE} bytes from {@code peerPid}. */
  static int[] answer(ByteBuf request, int peerPid) {
    int magic = request.getInt(0);
    int version = request.getUnsignedShort(4);
    int command = request.getUnsignedShort(6);
    if (magic != MAGIC) {
      return new int[] {BAD_REQUEST, 0};
    }
    if (version != VERSION) {
      return new int[] {BAD_VERSION, 0};
    }
    if (command != COMMAND_HOST_PID) {
      return new int[] {BAD_COMMAND, 0};
    }
    if (peerPid <= 0) {
      return new int[] {NO_PID, 0};
    }
    return new int[] {OK, peerPid};
  }

  /** Collects one request, answers it and closes; a silent or short client is closed. */
  private static final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
    private @Nullable ByteBuf request;
    private @Nullable ScheduledFuture<?> timeout;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      request = ctx.alloc().buffer(REQUEST_SIZE, REQUEST_SIZE);
      timeout = ctx.executor().schedule(() -> ctx.close(), READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
      ByteBuf req = request;
      if (req == null) {
        return;
      }
      req.writeBytes(in, Math.min(in.readableBytes(), req.writableBytes()));
      if (req.isWritable()) {
        return;
      }
      request = null;
      int pid = 0;
      try {
        PeerCredentials cred = ((EpollDomainSocketChannel) ctx.channel()).peerCredentials();
        pid = cred.pid();
      } catch (IOException e) {
        log.debug("no peer credentials: {}", e.toString());
      }
      int[] a = answer(req, pid);
      req.release();
      if (a[0] != OK) {
        log.debug("host-pid broker: status {} for peer pid {}", a[0], pid);
      }
      ByteBuf reply = ctx.alloc().buffer(12);
      reply.writeInt(MAGIC).writeShort(VERSION).writeShort(a[0]).writeInt(a[1]);
      ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (timeout != null) {
        timeout.cancel(false);
      }
      if (request != null) {
        request.release();
        request = null;
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("host-pid broker connection failed: {}", cause.toString());
      ctx.close();
    }
  }
}
