package io.hami.model.testing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A seeded HTTP/1.1 proxy in front of an API server that fails a share of the writes.
 *
 * <p>Every write ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) draws from a seeded
 * {@link Random}: with probability {@code rate} it gets one of the proxy's {@link Fault}s (all of
 * them unless {@link #start(InetSocketAddress, double, Duration, long, Set)} names fewer), chosen
 * evenly. Every fault but {@link Fault#LOST_ANSWER} keeps the write from the server; a lost answer
 * is the write the server applied and the client never heard of. Reads pass untouched. Watches (a
 * websocket upgrade or a {@code watch=true} GET) are spliced byte for byte in both directions for
 * as long as either side keeps the connection, so informers see the server's stream as it is.
 *
 * <p>The seed comes from the system property {@value #SEED_PROPERTY} when set (to replay a run),
 * otherwise from the clock; {@link #start} prints it. {@value #KINDS_PROPERTY} (fault names,
 * comma-separated) narrows the draw and {@value #RATE_PROPERTY} replaces the test's rate, to aim a
 * run at one kind of fault or to press harder. Decisions are drawn in arrival order, so a replay
 * with concurrent clients injects the same number of faults, not always on the same request.
 *
 * <p>Concurrency: one daemon thread accepts; each connection gets a thread of its own (two for a
 * spliced watch). Non-watch requests are answered with {@code Connection: close}, so a connection
 * carries one request and the proxy never has to track keep-alive state. The counters are atomic.
 */
public final class FaultProxy implements AutoCloseable {

  /** The system property that sets the seed. */
  public static final String SEED_PROPERTY = "hami.faults.seed";

  /** The system property that names the faults drawn from (all when unset). */
  public static final String KINDS_PROPERTY = "hami.faults.kinds";

  /** The system property that replaces the rate a test asks for. */
  public static final String RATE_PROPERTY = "hami.faults.rate";

  /** What a faulted write gets instead of the server's answer. */
  public enum Fault {
    /** 409 with a {@code Status} of reason {@code Conflict}, as a stale resourceVersion gets. */
    CONFLICT,
    /** 429 with {@code Retry-After: 1}, as API priority and fairness answers. */
    TOO_MANY_REQUESTS,
    /** 500 with a {@code Status} of reason {@code InternalError}. */
    INTERNAL_ERROR,
    /** No answer: the request is held for the hold time, then the connection is dropped. */
    TIMEOUT,
    /**
     * The write reaches the server, which applies it; once the server's whole answer is in, the
     * client's connection is reset instead of getting it. The client cannot tell this from a {@link
     * #TIMEOUT}, so a retry repeats a write that already happened: a create gets 409 AlreadyExists,
     * a lock taken gets "held" by its own holder, an append happens twice. A reset rather than a
     * 504: the client's own retries and every caller's handling of a lost connection run, and
     * nothing in the answer hints that the write may have happened.
     */
    LOST_ANSWER
  }

  private final InetSocketAddress upstream;
  private final double rate;
  private final long seed;
  private final Duration hold;
  private final Random random;
  private final Fault[] faults;
  private final ServerSocket server;
  private final ExecutorService threads;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean enabled = true;
  private final AtomicLong budget = new AtomicLong(Long.MAX_VALUE);

  private FaultProxy(
      InetSocketAddress upstream, double rate, long seed, Duration hold, Set<Fault> faults)
      throws IOException {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("rate must be in [0, 1], was " + rate);
    }
    if (faults.isEmpty()) {
      throw new IllegalArgumentException("faults must name at least one Fault, was empty");
    }
    this.faults = EnumSet.copyOf(faults).toArray(new Fault[0]);
    this.upstream = upstream;
    this.rate = rate;
    this.seed = seed;
    this.hold = hold;
    this.random = new Random(seed);
    for (Fault f : Fault.values()) {
      injected.put(f, new AtomicLong());
    }
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fault-proxy");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts a proxy on a free loopback port in front of {@code upstream}.
   *
   * @param rate the share of writes to fail, in [0, 1]
   * @param hold how long a {@link Fault#TIMEOUT} holds the request before dropping it
   */
  public static FaultProxy start(InetSocketAddress upstream, double rate, Duration hold) {
    String seed = System.getProperty(SEED_PROPERTY);
    String kinds = System.getProperty(KINDS_PROPERTY);
    String rateOverride = System.getProperty(RATE_PROPERTY);
    return start(
        upstream,
        rateOverride == null ? rate : parseRate(rateOverride),
        hold,
        seed == null ? System.nanoTime() : parseSeed(seed),
        kinds == null ? EnumSet.allOf(Fault.class) : parseKinds(kinds));
  }

  static long parseSeed(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          SEED_PROPERTY + " must be a long, was \"" + value + "\"", e);
    }
  }

  static double parseRate(String value) {
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          RATE_PROPERTY + " must be a number in [0, 1], was \"" + value + "\"", e);
    }
  }

  static Set<Fault> parseKinds(String value) {
    Set<Fault> out = EnumSet.noneOf(Fault.class);
    for (String name : value.split(",", -1)) {
      try {
        out.add(Fault.valueOf(name.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            KINDS_PROPERTY
                + " names an unknown fault \""
                + name.trim()
                + "\" in \""
                + value
                + "\"; known: "
                + Arrays.toString(Fault.values()),
            e);
      }
    }
    return out;
  }

  /** Starts a proxy with an explicit seed (tests of the proxy itself). */
  public static FaultProxy start(
      InetSocketAddress upstream, double rate, Duration hold, long seed) {
    return start(upstream, rate, hold, seed, EnumSet.allOf(Fault.class));
  }

  /**
   * Starts a proxy that draws only from {@code faults} (in their declaration order, so a seed
   * replays with the same set).
   */
  public static FaultProxy start(
      InetSocketAddress upstream, double rate, Duration hold, long seed, Set<Fault> faults) {
    try {
      FaultProxy p = new FaultProxy(upstream, rate, seed, hold, faults);
      System.out.printf(
          "FaultProxy on port %d -> %s: rate=%s faults=%s seed=%d (-D%s=%d replays it)%n",
          p.port(), upstream, rate, Arrays.toString(p.faults), seed, SEED_PROPERTY, seed);
      p.threads.execute(p::acceptLoop);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The port the proxy listens on (loopback). */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code http://127.0.0.1:<port>/}, for a client's master URL. */
  public String url() {
    return "http://127.0.0.1:" + port() + "/";
  }

  /** The seed of this run. */
  public long seed() {
    return seed;
  }

  /** Stops (or resumes) injecting faults; requests in flight keep their decision. */
  public void enabled(boolean on) {
    this.enabled = on;
  }

  /**
   * Injects at most {@code faults} more faults, then passes every write (a test that needs one lost
   * answer and a working server after it).
   */
  public FaultProxy limit(long faults) {
    budget.set(faults);
    return this;
  }

  /** How many writes got {@code fault}. */
  public long injected(Fault fault) {
    AtomicLong n = injected.get(fault);
    return n == null ? 0 : n.get();
  }

  /** How many writes got any fault. */
  public long injected() {
    return injected.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** How many writes arrived (faulted or not). */
  public long writes() {
    return writes.get();
  }

  /** How many requests (reads, writes and watches) reached the server. */
  public long forwarded() {
    return forwarded.get();
  }

  /** A one-line summary for the test's output. */
  public String summary() {
    return String.format(
        Locale.ROOT,
        "seed=%d writes=%d injected=%d %s forwarded=%d",
        seed,
        writes(),
        injected(),
        injected,
        forwarded());
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      closeQuietly(server);
      threads.shutdownNow();
      try {
        threads.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void acceptLoop() {
    while (!closed.get()) {
      try {
        Socket client = server.accept();
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        if (!closed.get()) {
          System.err.println("FaultProxy accept failed: " + e);
        }
      }
    }
  }

  private @Nullable Fault draw(String method) {
    if (!isWrite(method)) {
      return null;
    }
    writes.incrementAndGet();
    synchronized (random) {
      if (!enabled || random.nextDouble() >= rate || budget.get() <= 0) {
        return null;
      }
      budget.decrementAndGet();
      return faults[random.nextInt(faults.length)];
    }
  }

  private static boolean isWrite(String method) {
    return switch (method) {
      case "POST", "PUT", "PATCH", "DELETE" -> true;
      default -> false;
    };
  }

  private void serve(Socket client) {
    Socket up = null;
    try {
      InputStream in = client.getInputStream();
      byte[] head = HttpWire.readHead(in);
      if (head == null) {
        return;
      }
      HttpWire.Request r = HttpWire.Request.parse(head);
      Fault fault = draw(r.method());
      if (r.isWatch()) {
        up = connect();
        forwarded.incrementAndGet();
        up.getOutputStream().write(head);
        up.getOutputStream().flush();
        splice(client, up);
        up = null; // the splice closes both
        return;
      }
      byte[] body = HttpWire.readBody(in, r);
      if (fault != null && fault != Fault.LOST_ANSWER) {
        injected.get(fault).incrementAndGet();
        answerFault(client, fault, r);
        return;
      }
      up = connect();
      forwarded.incrementAndGet();
      OutputStream uo = up.getOutputStream();
      uo.write(r.withConnectionClose());
      uo.write(body);
      uo.flush();
      InputStream ui = up.getInputStream();
      if (fault == Fault.LOST_ANSWER) {
        ui.readAllBytes(); // the server has answered, so it has applied the write or refused it
        injected.get(fault).incrementAndGet();
        client.setSoLinger(true, 0);
        return;
      }
      byte[] responseHead = HttpWire.readHead(ui);
      if (responseHead == null) {
        return; // the server dropped it: so does the proxy
      }
      OutputStream co = client.getOutputStream();
      co.write(HttpWire.withConnectionClose(responseHead));
      ui.transferTo(co);
      co.flush();
    } catch (IOException e) {
      // A client or server that went away mid-request: drop the connection, as a network would.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (up != null) {
        closeQuietly(up);
      }
      closeQuietly(client); // a spliced watch has closed it already; twice is harmless
    }
  }

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(upstream, 5_000);
    return s;
  }

  /** Copies both directions until one side ends, then closes both sockets. */
  private void splice(Socket client, Socket up) {
    AtomicBoolean done = new AtomicBoolean();
    Runnable closeBoth =
        () -> {
          if (done.compareAndSet(false, true)) {
            closeQuietly(client);
            closeQuietly(up);
          }
        };
    threads.execute(
        () -> {
          try {
            pump(up.getInputStream(), client.getOutputStream());
          } catch (IOException e) {
            // the connection ended
          } finally {
            closeBoth.run();
          }
        });
    try {
      pump(client.getInputStream(), up.getOutputStream());
    } catch (IOException e) {
      // the connection ended
    } finally {
      closeBoth.run();
    }
  }

  private static void pump(InputStream in, OutputStream out) throws IOException {
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) >= 0) {
      out.write(buf, 0, n);
      out.flush();
    }
  }

  private void answerFault(Socket client, Fault fault, HttpWire.Request r)
      throws IOException, InterruptedException {
    if (fault == Fault.TIMEOUT) {
      Thread.sleep(hold.toMillis());
      client.setSoLinger(true, 0); // a reset, not a clean end of the response
      return;
    }
    int code;
    String reason;
    String message;
    String extra = "";
    switch (fault) {
      case CONFLICT -> {
        code = 409;
        reason = "Conflict";
        message =
            "Operation cannot be fulfilled on "
                + r.resource()
                + ": the object has been modified; please apply your changes to the latest"
                + " version and try again";
      }
      case TOO_MANY_REQUESTS -> {
        code = 429;
        reason = "TooManyRequests";
        message = "Too many requests, please try again later.";
        extra = "Retry-After: 1\r\n";
      }
      default -> {
        code = 500;
        reason = "InternalError";
        message = "Internal error occurred: injected by FaultProxy";
      }
    }
    String body = HttpWire.status(code, reason, message);
    byte[] bytes = body.getBytes(UTF_8);
    String headers =
        "HTTP/1.1 "
            + code
            + " "
            + reason
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + bytes.length
            + "\r\n"
            + extra
            + "Connection: close\r\n\r\n";
    OutputStream out = client.getOutputStream();
    out.write(headers.getBytes(ISO_8859_1));
    out.write(bytes);
    out.flush();
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      // already gone
    }
  }
}
