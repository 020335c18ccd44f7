package io.hami.model.pod;

import io.hami.model.Decoded;
import io.hami.model.internal.GoText;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod device annotation value ({@code …-devices-to-allocate} / {@code …-devices-allocated}).
 *
 * <p>Grammar: {@code device := uuid,type,usedmem,usedcores:}, {@code container := device* ;},
 * {@code value := container*}. Both {@code :} and {@code ;} are terminators, so a decoded value has
 * one more entry than was encoded (the empty piece after the final {@code ;}); {@code ""} decodes
 * to one empty entry.
 */
public final class PodDevicesCodec {

  /** The reference implementation's error for a record with fewer than 4 fields. */
  public static final String MISSING_FIELDS =
      "pod annotation format error, missing fields, do not use nodeName in task spec";

  private PodDevicesCodec() {}

  /**
   * Encodes a pod: each entry's devices followed by {@code ;}.
   *
   * @throws IllegalArgumentException if a uuid or type contains {@code , : ;}
   */
  public static String encode(PodDevices pod) {
    StringBuilder b = new StringBuilder(pod.size() * 64);
    for (List<ContainerDevice> c : pod.containers()) {
      appendContainer(b, c);
      b.append(';');
    }
    return b.toString();
  }

  /** Encodes one container's devices, each followed by {@code :} (no {@code ;}). */
  public static String encodeContainer(List<ContainerDevice> devices) {
    return appendContainer(new StringBuilder(devices.size() * 64), devices).toString();
  }

  private static StringBuilder appendContainer(StringBuilder b, List<ContainerDevice> devices) {
    for (ContainerDevice d : devices) {
      appendDevice(b, d).append(':');
    }
    return b;
  }

  private static StringBuilder appendDevice(StringBuilder b, ContainerDevice d) {
    check("uuid", d.uuid());
    check("type", d.type());
    return b.append(d.uuid())
        .append(',')
        .append(d.type())
        .append(',')
        .append(d.usedmem())
        .append(',')
        .append(d.usedcores());
  }

  /**
   * Encodes only the devices of {@code type}, with {@code :} between them and none after the last.
   * An empty selection gives {@code ""}.
   */
  public static String encodeContainerDeviceType(List<ContainerDevice> devices, String type) {
    StringBuilder b = new StringBuilder();
    for (ContainerDevice d : devices) {
      if (!d.type().equals(type)) {
        continue;
      }
      if (b.length() > 0) {
        b.append(':');
      }
      appendDevice(b, d);
    }
    return b.toString();
  }

  private static void check(String field, String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == ',' || c == ':' || c == ';') {
        throw new IllegalArgumentException(
            field + " must not contain ',', ':' or ';': " + GoText.quote(v));
      }
    }
  }

  /** Decodes a pod annotation value, keeping empty container entries. */
  public static Decoded<PodDevices> decode(String value) {
    List<List<ContainerDevice>> containers = new ArrayList<>();
    int ci = 0;
    for (String piece : GoText.split(value, ';')) {
      Decoded<List<ContainerDevice>> c = decodeContainer(piece);
      if (c instanceof Decoded.Err<List<ContainerDevice>> err) {
        return Decoded.err(err.error().within("[" + ci + "]"));
      }
      containers.add(((Decoded.Ok<List<ContainerDevice>>) c).value());
      ci++;
    }
    return Decoded.ok(new PodDevices(containers));
  }

  /** Decodes one container entry ({@code d1:d2:}); sub-pieces without {@code ,} are skipped. */
  public static Decoded<List<ContainerDevice>> decodeContainer(String piece) {
    List<ContainerDevice> devices = new ArrayList<>();
    int di = 0;
    for (String sub : GoText.split(piece, ':')) {
      if (sub.indexOf(',') < 0) {
        continue;
      }
      Decoded<ContainerDevice> d = decodeDevice(sub);
      if (d instanceof Decoded.Err<ContainerDevice> err) {
        return Decoded.err(err.error().within("[" + di + "]"));
      }
      devices.add(((Decoded.Ok<ContainerDevice>) d).value());
      di++;
    }
    return Decoded.ok(List.copyOf(devices));
  }

  private static Decoded<ContainerDevice> decodeDevice(String sub) {
    List<String> f = GoText.split(sub, ',');
    if (f.size() < 4) {
      return Decoded.err("", sub, MISSING_FIELDS + ": " + GoText.quote(sub));
    }
    long mem = GoText.parseInt32(f.get(2));
    if (mem == GoText.INVALID) {
      return Decoded.err("usedmem", f.get(2), "invalid usedmem field " + GoText.quote(f.get(2)));
    }
    long cores = GoText.parseInt32(f.get(3));
    if (cores == GoText.INVALID) {
      return Decoded.err(
          "usedcores", f.get(3), "invalid usedcores field " + GoText.quote(f.get(3)));
    }
    return Decoded.ok(new ContainerDevice(f.get(0), f.get(1), (int) mem, (int) cores));
  }
}
