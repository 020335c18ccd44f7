package io.hami.webhook;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** The few DER operations needed to turn PKCS#1 and SEC1 private keys into PKCS#8. */
final class Der {

  private static final byte SEQUENCE = 0x30;
  private static final byte INTEGER = 0x02;
  private static final byte OCTET_STRING = 0x04;
  private static final byte NULL = 0x05;
  private static final byte OID = 0x06;
  private static final byte CONTEXT_0 = (byte) 0xA0;

  // 1.2.840.113549.1.1.1 rsaEncryption
  private static final byte[] RSA_OID = {
    OID, 0x09, 0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01, 0x01
  };
  // 1.2.840.10045.2.1 id-ecPublicKey
  private static final byte[] EC_OID = {OID, 0x07, 0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01};
  private static final byte[] VERSION_0 = {INTEGER, 0x01, 0x00};

  private Der() {}

  static byte[] wrapPkcs1Rsa(byte[] pkcs1) {
    byte[] algorithm = tlv(SEQUENCE, concat(RSA_OID, new byte[] {NULL, 0x00}));
    return tlv(SEQUENCE, concat(VERSION_0, algorithm, tlv(OCTET_STRING, pkcs1)));
  }

  /** SEC1 {@code ECPrivateKey}: the curve comes from its optional {@code [0] parameters}. */
  static byte[] wrapSec1Ec(byte[] sec1, String name) throws IOException {
    Reader outer = new Reader(sec1, 0, sec1.length, name);
    Reader seq = outer.enter(SEQUENCE);
    seq.skip(INTEGER);
    seq.skip(OCTET_STRING);
    byte[] curve = null;
    while (seq.hasMore()) {
      if (seq.peekTag() == CONTEXT_0) {
        Reader params = seq.enter(CONTEXT_0);
        curve = params.raw(OID);
      } else {
        seq.skipAny();
      }
    }
    if (curve == null) {
      throw new IOException(name + ": EC private key does not name its curve");
    }
    byte[] algorithm = tlv(SEQUENCE, concat(EC_OID, curve));
    return tlv(SEQUENCE, concat(VERSION_0, algorithm, tlv(OCTET_STRING, sec1)));
  }

  static byte[] tlv(byte tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int len = content.length;
    if (len < 0x80) {
      out.write(len);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(len) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((len >>> (8 * i)) & 0xFF);
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Reads TLVs from {@code [pos, end)} of a buffer, checking every length against the bounds. */
  private static final class Reader {
    private final byte[] buf;
    private int pos;
    private final int end;
    private final String name;

    Reader(byte[] buf, int pos, int end, String name) {
      this.buf = buf;
      this.pos = pos;
      this.end = end;
      this.name = name;
    }

    boolean hasMore() {
      return pos < end;
    }

    byte peekTag() throws IOException {
      if (pos >= end) {
        throw malformed();
      }
      return buf[pos];
    }

    Reader enter(byte tag) throws IOException {
      int[] header = header(tag);
      Reader inner = new Reader(buf, header[0], header[0] + header[1], name);
      pos = header[0] + header[1];
      return inner;
    }

    void skip(byte tag) throws IOException {
      int[] header = header(tag);
      pos = header[0] + header[1];
    }

    void skipAny() throws IOException {
      skip(peekTag());
    }

    byte[] raw(byte tag) throws IOException {
      int start = pos;
      skip(tag);
      byte[] out = new byte[pos - start];
      System.arraycopy(buf, start, out, 0, out.length);
      return out;
    }

    /** Returns {content offset, content length} of the TLV at pos, which must have this tag. */
    private int[] header(byte tag) throws IOException {
      if (pos + 2 > end || buf[pos] != tag) {
        throw malformed();
      }
      int p = pos + 1;
      int len = buf[p++] & 0xFF;
      if (len >= 0x80) {
        int bytes = len & 0x7F;
        if (bytes == 0 || bytes > 3 || p + bytes > end) {
          throw malformed();
        }
        len = 0;
        for (int i = 0; i < bytes; i++) {
          len = (len << 8) | (buf[p++] & 0xFF);
        }
      }
      if (len > end - p) {
        throw malformed();
      }
      return new int[] {p, len};
    }

    private IOException malformed() {
      return new IOException(name + ": malformed DER in EC private key");
    }
  }
}
