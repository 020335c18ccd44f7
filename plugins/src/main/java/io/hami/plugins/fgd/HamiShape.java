package io.hami.plugins.fgd;

import java.util.List;
import java.util.Locale;

/**
 * A task shape in HAMi's request units: CPU, and per GPU container the number of GPUs, memory (MiB
 * or percent of the card) and cores (percent of the card). Its share of a given card, in milli-GPU,
 * is the larger of its memory and core fractions, so that a card's free share is the smaller of its
 * free memory and free cores fractions.
 *
 * @param cpuMilli CPU request in millicores
 * @param gpus GPUs per task (0 for a CPU-only task)
 * @param memMiB memory per GPU in MiB, 0 when given as a percentage or not at all
 * @param memPercent memory per GPU in percent, {@link #PERCENT_UNSET} when not given
 * @param cores cores per GPU in percent (0 = no core limit)
 * @param types allowed device types ({@code use-gputype}), matched as case-insensitive substrings;
 *     empty meaning any
 */
public record HamiShape(
    int cpuMilli, int gpus, int memMiB, int memPercent, int cores, List<String> types) {

  /** HAMi's sentinel for "no memory percentage given". */
  public static final int PERCENT_UNSET = 101;

  public HamiShape {
    if (cpuMilli < 0 || gpus < 0 || gpus > Fragmentation.MAX_GPUS || memMiB < 0 || cores < 0) {
      throw new IllegalArgumentException(
          "invalid shape: cpu "
              + cpuMilli
              + "m, gpus "
              + gpus
              + ", memory "
              + memMiB
              + " MiB, cores "
              + cores);
    }
    if (memPercent <= 0 || memPercent > 100) {
      memPercent = PERCENT_UNSET;
    }
    types =
        types.isEmpty()
            ? List.of()
            : types.stream()
                .map(t -> t.trim().toLowerCase(Locale.ROOT))
                .filter(t -> !t.isEmpty())
                .toList();
  }

  /** A shape with no GPU. */
  public static HamiShape cpuOnly(int cpuMilli) {
    return new HamiShape(cpuMilli, 0, 0, PERCENT_UNSET, 0, List.of());
  }

  /**
   * A shape asking for {@code milli} thousandths of each of {@code gpus} cards, in memory and cores
   * alike (the openb trace's {@code gpu_milli}, in whole percents).
   */
  public static HamiShape ofShare(int cpuMilli, int gpus, int milli, List<String> types) {
    if (gpus == 0) {
      return cpuOnly(cpuMilli);
    }
    int pct = Math.max(1, Math.min(100, (milli + 9) / 10));
    return new HamiShape(cpuMilli, gpus, 0, pct, pct, types);
  }

  /**
   * The task's share of one card of the given capacity in milli-GPU (1..1000), or 0 for a CPU-only
   * task. Memory defaults to the whole card when not asked, as HAMi does.
   *
   * @param devmemMiB the card's memory in MiB
   * @param devcore the card's core capacity (100 × core scaling)
   */
  public int shareOn(int devmemMiB, int devcore) {
    if (gpus == 0) {
      return 0;
    }
    long mem;
    if (memMiB > 0) {
      mem = devmemMiB <= 0 ? 1000 : ceilDiv(1000L * memMiB, devmemMiB);
    } else if (memPercent != PERCENT_UNSET) {
      mem = memPercent * 10L;
    } else {
      mem = 1000;
    }
    long core = devcore <= 0 ? 0 : ceilDiv(1000L * Math.min(cores, 100), devcore);
    return (int) Math.max(1, Math.min(1000, Math.max(mem, core)));
  }

  /** Whether a card of {@code deviceType} may serve this shape. */
  public boolean allows(String deviceType) {
    if (types.isEmpty()) {
      return true;
    }
    String t = deviceType.toLowerCase(Locale.ROOT);
    for (String want : types) {
      if (t.contains(want)) {
        return true;
      }
    }
    return false;
  }

  /** A stable text form used to order shapes with equal popularity. */
  String label() {
    return String.join("|", types);
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
