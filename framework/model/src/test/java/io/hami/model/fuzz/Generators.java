package io.hami.model.fuzz;

import io.hami.model.device.MigPlacement;
import io.hami.model.device.MigProfile;
import io.hami.model.device.NodeDevice;
import io.hami.model.pod.ContainerDevice;
import io.hami.model.pod.PodDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/** Random valid protocol values for property tests. */
final class Generators {

  private static final String PLAIN = "abcdefXYZ0123456789-._/ ";
  private static final String ANY = PLAIN + ",:;\"\\<>&\n\t\u00e9\u4e2d\u2028";

  private final Random r;

  Generators(long seed) {
    r = new Random(seed);
  }

  Random random() {
    return r;
  }

  int anyInt() {
    return switch (r.nextInt(5)) {
      case 0 -> 0;
      case 1 -> Integer.MAX_VALUE - r.nextInt(3);
      case 2 -> Integer.MIN_VALUE + r.nextInt(3);
      case 3 -> r.nextInt(200) - 100;
      default -> r.nextInt();
    };
  }

  int nonNegative() {
    return anyInt() & Integer.MAX_VALUE;
  }

  /** Text without the colon form's separators. */
  String plain(int max) {
    return text(PLAIN, max);
  }

  /** Text with separators, escapes and non-ASCII characters (valid UTF-16 only). */
  String any(int max) {
    StringBuilder b = new StringBuilder(text(ANY, max));
    if (r.nextInt(8) == 0) {
      b.appendCodePoint(0x1F600); // a surrogate pair
    }
    if (r.nextInt(8) == 0) {
      b.append((char) r.nextInt(0x20));
    }
    return b.toString();
  }

  private String text(String alphabet, int max) {
    int n = r.nextInt(max + 1);
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  NodeDevice jsonDevice() {
    List<MigProfile> profiles = new ArrayList<>();
    int np = r.nextInt(4) == 0 ? r.nextInt(3) + 1 : 0;
    for (int i = 0; i < np; i++) {
      List<MigPlacement> pl = new ArrayList<>();
      for (int k = r.nextInt(3); k > 0; k--) {
        pl.add(new MigPlacement(anyInt(), anyInt()));
      }
      profiles.add(new MigProfile(any(10), anyInt(), anyInt(), anyInt(), 0, pl));
    }
    return new NodeDevice(
        any(40),
        nonNegative(),
        anyInt(),
        anyInt(),
        anyInt(),
        any(30),
        anyInt(),
        any(10),
        profiles,
        r.nextBoolean());
  }

  NodeDevice colonDevice() {
    return NodeDevice.of(
        plain(40),
        nonNegative(),
        anyInt(),
        anyInt(),
        anyInt(),
        plain(30),
        anyInt(),
        plain(10),
        r.nextBoolean());
  }

  <T> List<T> list(int max, Supplier<T> item) {
    List<T> out = new ArrayList<>();
    for (int i = r.nextInt(max + 1); i > 0; i--) {
      out.add(item.get());
    }
    return out;
  }

  PodDevices pod() {
    List<List<ContainerDevice>> containers = new ArrayList<>();
    for (int c = r.nextInt(6); c > 0; c--) {
      containers.add(list(3, () -> new ContainerDevice(plain(40), plain(12), anyInt(), anyInt())));
    }
    return new PodDevices(containers);
  }
}
