package io.hami.model.testing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** The HTTP/1.1 framing {@link FaultProxy} reads and rewrites: heads, bodies, hop headers. */
final class HttpWire {
  private HttpWire() {}

  /** The bytes up to and including the blank line, or null at end of stream before any. */
  static byte @Nullable [] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(512);
    int state = 0; // how much of CR LF CR LF has been seen
    int c;
    while ((c = in.read()) >= 0) {
      b.write(c);
      if (c == '\r' && (state == 0 || state == 2)) {
        state++;
      } else if (c == '\n' && (state == 1 || state == 3)) {
        state++;
        if (state == 4) {
          return b.toByteArray();
        }
      } else {
        state = c == '\r' ? 1 : 0;
      }
      if (b.size() > 1 << 20) {
        throw new IOException("request head over 1 MiB");
      }
    }
    return null;
  }

  static byte[] readBody(InputStream in, Request r) throws IOException {
    String length = r.header("content-length");
    if (length != null) {
      return in.readNBytes(Integer.parseInt(length.trim()));
    }
    String te = r.header("transfer-encoding");
    if (te == null || !te.toLowerCase(Locale.ROOT).contains("chunked")) {
      return new byte[0];
    }
    // Keep the chunked framing as it is; the server decodes it.
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in, b);
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
      if (size == 0) {
        // trailers, then the blank line
        while (!readLine(in, b).isEmpty()) {}
        return b.toByteArray();
      }
      b.write(in.readNBytes(size));
      readLine(in, b);
    }
  }

  /** Reads one CRLF-ended line, copying its bytes to {@code copy}; returns it without the CRLF. */
  private static String readLine(InputStream in, ByteArrayOutputStream copy) throws IOException {
    StringBuilder s = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      copy.write(c);
      if (c == '\n') {
        break;
      }
      if (c != '\r') {
        s.append((char) c);
      }
    }
    if (c < 0) {
      throw new IOException("end of stream in a chunked body");
    }
    return s.toString();
  }

  /** {@code head} with its hop-by-hop headers replaced by {@code Connection: close}. */
  static byte[] withConnectionClose(byte[] head) {
    String[] lines = new String(head, ISO_8859_1).split("\r\n");
    StringBuilder s = new StringBuilder(head.length + 20);
    s.append(lines[0]).append("\r\n");
    for (int i = 1; i < lines.length; i++) {
      String l = lines[i].toLowerCase(Locale.ROOT);
      // An h2c upgrade offer is dropped with them: the server answers in HTTP/1.1.
      if (!l.isEmpty()
          && !l.startsWith("connection:")
          && !l.startsWith("keep-alive:")
          && !l.startsWith("upgrade:")
          && !l.startsWith("http2-settings:")) {
        s.append(lines[i]).append("\r\n");
      }
    }
    s.append("Connection: close\r\n\r\n");
    return s.toString().getBytes(ISO_8859_1);
  }

  /** A Kubernetes {@code Status} body of a failed request, as the API server sends it. */
  static String status(int code, String reason, String message) {
    return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\""
        + message.replace("\"", "\\\"")
        + "\",\"reason\":\""
        + reason
        + "\",\"code\":"
        + code
        + "}";
  }

  /** The request line and headers of one request. */
  record Request(String method, String target, List<String> lines, byte[] head) {

    static Request parse(byte[] head) throws IOException {
      String[] all = new String(head, ISO_8859_1).split("\r\n");
      String[] first = all[0].split(" ");
      if (first.length < 3) {
        throw new IOException("bad request line: " + all[0]);
      }
      List<String> lines = new ArrayList<>();
      for (int i = 1; i < all.length; i++) {
        if (!all[i].isEmpty()) {
          lines.add(all[i]);
        }
      }
      return new Request(first[0], first[1], lines, head);
    }

    @Nullable String header(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      for (String l : lines) {
        if (l.toLowerCase(Locale.ROOT).startsWith(prefix)) {
          return l.substring(prefix.length()).trim();
        }
      }
      return null;
    }

    boolean isWatch() {
      String upgrade = header("upgrade");
      return upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket")
          || target.contains("watch=true")
          || target.contains("watch=1")
          || target.contains("follow=true");
    }

    byte[] withConnectionClose() {
      return HttpWire.withConnectionClose(head);
    }

    /** {@code pods "p"} from {@code /api/v1/namespaces/default/pods/p[/binding]}, for messages. */
    String resource() {
      return ApiPath.parse(target).describe();
    }
  }
}
