package io.hami.nodeagent.nvml;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a fake GPU description such as {@code 8xNVIDIA-H200:143771MiB,numa=0-1}.
 *
 * <p>Grammar: groups separated by {@code +}; each group is {@code <count>x<model>:<memory>} with
 * memory in {@code MiB} or {@code GiB}, followed by optional {@code ,numa=<n>} or {@code
 * ,numa=<first>-<last>} (GPUs are spread over the nodes in contiguous blocks) and {@code ,mig} (MIG
 * mode on: {@link FakeNvml} then offers the A100 profiles). UUIDs are derived from the node name
 * and the index, so they stay stable across restarts.
 */
public final class FakeGpuSpec {
  private static final Pattern GROUP =
      Pattern.compile("(\\d+)x([^:]+):(\\d+)(MiB|GiB)((?:,[a-z]+(?:=[^,]+)?)*)");

  private FakeGpuSpec() {}

  /** Parses {@code spec}; throws {@link IllegalArgumentException} naming the bad part. */
  public static List<GpuInfo> parse(String spec, String nodeName) {
    List<GpuInfo> out = new ArrayList<>();
    if (spec.isBlank()) {
      throw new IllegalArgumentException("empty fake GPU spec");
    }
    for (String group : Splitter.on('+').split(spec)) {
      Matcher m = GROUP.matcher(group.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "fake GPU group '"
                + group
                + "' is not <count>x<model>:<memory>MiB|GiB[,numa=a-b][,mig]");
      }
      int count = parseInt(m.group(1), "count", group);
      if (count < 1 || count > 64) {
        throw new IllegalArgumentException("fake GPU count must be 1..64 in '" + group + "'");
      }
      String model = m.group(2).trim();
      long memory = Long.parseLong(m.group(3)) * (m.group(4).equals("GiB") ? 1024 : 1);
      if (memory < 1 || memory > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("fake GPU memory out of range in '" + group + "'");
      }
      int numaFirst = 0;
      int numaLast = 0;
      boolean mig = false;
      for (String opt : Splitter.on(',').split(m.group(5))) {
        if (opt.isEmpty()) {
          continue;
        }
        if (opt.equals("mig")) {
          mig = true;
          continue;
        }
        String[] kv = opt.split("=", 2);
        if (!kv[0].equals("numa") || kv.length < 2) {
          throw new IllegalArgumentException(
              "unknown fake GPU option '" + kv[0] + "' in '" + group + "'");
        }
        String[] range = kv[1].split("-", 2);
        numaFirst = parseInt(range[0], "numa", group);
        numaLast = range.length == 2 ? parseInt(range[1], "numa", group) : numaFirst;
        if (numaLast < numaFirst) {
          throw new IllegalArgumentException("numa range is reversed in '" + group + "'");
        }
      }
      int nodes = numaLast - numaFirst + 1;
      for (int i = 0; i < count; i++) {
        int index = out.size();
        int numa = numaFirst + (int) ((long) i * nodes / count);
        out.add(
            new GpuInfo(
                index,
                uuid(nodeName, index),
                model,
                memory,
                String.format(Locale.ROOT, "00000000:%02X:00.0", 0x18 + index),
                numa,
                mig));
      }
    }
    return ImmutableList.copyOf(out);
  }

  /** A UUID in NVML's form, stable for a node name and index. */
  public static String uuid(String nodeName, int index) {
    UUID u = UUID.nameUUIDFromBytes((nodeName + "/" + index).getBytes(StandardCharsets.UTF_8));
    return "GPU-" + u;
  }

  private static int parseInt(String s, String what, String group) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " '" + s + "' is not a number in '" + group + "'");
    }
  }
}
