package io.hami.nodeagent.deviceplugin;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Path;

/**
 * gRPC servers and channels over Unix domain sockets, as the kubelet's device-plugin API uses them.
 *
 * <p>gRPC asks every connection for {@code SO_KEEPALIVE}, a TCP option a Unix socket does not have;
 * netty then warns once per connection. Both builders remove the option.
 */
public final class UnixSockets {
  private UnixSockets() {}

  /** A started server on {@code socket}, its I/O on {@code group}. */
  public static Server serve(Path socket, EventLoopGroup group, BindableService service)
      throws IOException {
    return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group)
        .withChildOption(ChannelOption.SO_KEEPALIVE, null)
        .addService(service)
        .build()
        .start();
  }

  /** A plaintext channel to the server on {@code socket}, its I/O on {@code group}. */
  public static ManagedChannel channel(Path socket, EventLoopGroup group) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        .eventLoopGroup(group)
        .withOption(ChannelOption.SO_KEEPALIVE, null)
        .overrideAuthority("localhost")
        .usePlaintext()
        .build();
  }
}
