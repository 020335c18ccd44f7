package io.hami.cmd.bench;

import com.google.common.base.Splitter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** Samples read from the Prometheus text exposition format. Immutable. */
record PromText(List<Sample> samples) {

  /** One line: metric name, labels and value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private static final Splitter WHITESPACE = Splitter.onPattern("\\s+");

  PromText {
    samples = List.copyOf(samples);
  }

  /** Parses exposition text; comment and malformed lines are skipped. */
  static PromText parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : Splitter.on('\n').split(text)) {
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Sample s = parseLine(line);
      if (s != null) {
        out.add(s);
      }
    }
    return new PromText(out);
  }

  private static @Nullable Sample parseLine(String line) {
    int brace = line.indexOf('{');
    int space;
    String name;
    Map<String, String> labels = new LinkedHashMap<>();
    if (brace >= 0 && brace < line.indexOf(' ')) {
      name = line.substring(0, brace);
      int i = brace + 1;
      while (i < line.length() && line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
          return null;
        }
        String key = line.substring(i, eq).strip();
        StringBuilder v = new StringBuilder();
        int j = eq + 2;
        while (j < line.length() && line.charAt(j) != '"') {
          char c = line.charAt(j);
          if (c == '\\' && j + 1 < line.length()) {
            char n = line.charAt(++j);
            v.append(n == 'n' ? '\n' : n);
          } else {
            v.append(c);
          }
          j++;
        }
        labels.put(key, v.toString());
        i = j + 1;
        if (i < line.length() && line.charAt(i) == ',') {
          i++;
        }
      }
      space = line.indexOf(' ', i);
    } else {
      space = line.indexOf(' ');
      if (space < 0) {
        return null;
      }
      name = line.substring(0, space);
    }
    if (space < 0) {
      return null;
    }
    // The value is the first token; a timestamp may follow.
    String value = WHITESPACE.split(line.substring(space + 1).strip()).iterator().next();
    try {
      return new Sample(name, Map.copyOf(labels), Double.parseDouble(value));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The sum of the samples named {@code name} whose labels pass {@code filter}. */
  double sum(String name, Predicate<Map<String, String>> filter) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && filter.test(s.labels()))
        .mapToDouble(Sample::value)
        .sum();
  }

  double sum(String name) {
    return sum(name, l -> true);
  }
}
