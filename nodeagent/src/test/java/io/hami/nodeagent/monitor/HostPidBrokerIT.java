package io.hami.nodeagent.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The broker over a real Unix socket, spoken to as libvgpu's {@code hostpid.c} does. */
class HostPidBrokerIT {
  @TempDir Path dir;
  Path socket;
  HostPidBroker broker;

  @BeforeEach
  void start() throws Exception {
    socket = dir.resolve("hostpid/broker.sock");
    Files.createDirectories(socket.getParent());
    Files.writeString(socket, "a stale file from an earlier agent");
    broker = new HostPidBroker(socket);
    broker.startAsync().awaitRunning(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    broker.stopAsync().awaitTerminated(10, TimeUnit.SECONDS);
  }

  static byte[] request(String magic, int version, int command) {
    ByteBuffer b = ByteBuffer.allocate(8);
    b.put(magic.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, 4);
    b.putShort((short) version).putShort((short) command);
    return b.array();
  }

  /** Sends {@code bytes} and reads the reply; null when the broker closed without one. */
  ByteBuffer ask(byte[] bytes) throws IOException {
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(socket));
      ch.write(ByteBuffer.wrap(bytes));
      ByteBuffer reply = ByteBuffer.allocate(12);
      while (reply.hasRemaining() && ch.read(reply) >= 0) {
        // read the whole reply
      }
      return reply.flip();
    }
  }

  @Test
  void answersTheCallersOwnPid() throws IOException {
    ByteBuffer r = ask(request("HPID", 1, 1));

    assertThat(r.remaining()).isEqualTo(12);
    assertThat(r.getInt(0)).isEqualTo(0x48504944);
    assertThat(r.getShort(4)).isEqualTo((short) 1);
    assertThat(r.getShort(6)).as("status").isZero();
    // The test runs in the host's pid namespace: its host pid is its own.
    assertThat((long) r.getInt(8)).isEqualTo(ProcessHandle.current().pid());
  }

  @Test
  void socketIsOpenToEveryContainerUser() throws IOException {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
        .isEqualTo("rw-rw-rw-");
  }

  record Malformed(String name, byte[] request, int status) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Malformed> malformed() {
    return Stream.of(
        new Malformed("wrong magic", request("XPID", 1, 1), HostPidBroker.BAD_REQUEST),
        new Malformed("zeros", new byte[8], HostPidBroker.BAD_REQUEST),
        new Malformed("version 2", request("HPID", 2, 1), HostPidBroker.BAD_VERSION),
        new Malformed("command 7", request("HPID", 1, 7), HostPidBroker.BAD_COMMAND));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedRequestsGetANonZeroStatus(Malformed m) throws IOException {
    ByteBuffer r = ask(m.request());

    assertThat(r.remaining()).isEqualTo(12);
    assertThat((int) r.getShort(6)).isEqualTo(m.status());
    assertThat(r.getInt(8)).isZero();
  }

  @Test
  void aShortRequestIsClosedWithoutAnswerAndTheBrokerKeepsServing() throws IOException {
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(socket));
      ch.write(ByteBuffer.wrap(new byte[] {'H', 'P'}));
      ch.shutdownOutput();
    }
    // A client that says nothing is dropped after the read timeout.
    long t0 = System.nanoTime();
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(socket));
      assertThat(ch.read(ByteBuffer.allocate(12))).isEqualTo(-1);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));

    assertThat(ask(request("HPID", 1, 1)).getShort(6)).isZero();
  }

  @Test
  void aLongerRequestIsAnsweredFromItsFirstEightBytes() throws IOException {
    byte[] longer = new byte[64];
    System.arraycopy(request("HPID", 1, 1), 0, longer, 0, 8);

    assertThat(ask(longer).getShort(6)).isZero();
  }

  @Test
  void stopRemovesTheSocket() throws Exception {
    broker.stopAsync().awaitTerminated(10, TimeUnit.SECONDS);

    assertThat(socket).doesNotExist();
  }
}
