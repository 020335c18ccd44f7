package io.hami.plugins.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * HAMi v2.10's recorded answers (test resources {@code conformance/hami-v2.10/}): one gzipped JSON
 * line per call of a HAMi function, {@code {"case", "fn", "in", "out", "site"}}, with Go's field
 * names.
 */
final class HamiRecords {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** One recorded call. */
  record Record(String name, String fn, JsonNode in, JsonNode out, String site) {
    @Override
    public String toString() {
      return name;
    }
  }

  private HamiRecords() {}

  /** Every record of {@code fn}, for example {@code "nvidia.Fit"}, in file order. */
  static List<Record> of(String fn) {
    String resource = "/conformance/hami-v2.10/" + fn + ".jsonl.gz";
    List<Record> out = new ArrayList<>();
    try (InputStream raw = HamiRecords.class.getResourceAsStream(resource)) {
      if (raw == null) {
        throw new IllegalArgumentException("no recorded answers for " + fn + " at " + resource);
      }
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(new GZIPInputStream(raw), StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        out.add(
            new Record(
                n.path("case").asString(),
                n.path("fn").asString(),
                n.path("in"),
                n.path("out"),
                n.path("site").asString()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
