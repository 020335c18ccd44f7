package io.hami.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.hami.cmd.simulate.SimulateCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import picocli.CommandLine;

/**
 * The simulator's HTML report in a real browser: {@code hami simulate --html} on the bundled
 * default trace (one seed), opened from the file with no network: every policy of the default set,
 * HAMi's binpack and spread included, has a row, a description and a line in the charts; the
 * recommendation names a policy; the page loads nothing from elsewhere. Needs no control plane.
 */
class SimulatorReportE2E {
  private static final List<String> POLICIES =
      List.of(
          "Random",
          "DotProd",
          "Clustering",
          "Packing",
          "BestFit",
          "FGD",
          "HAMi binpack",
          "HAMi spread");

  @TempDir Path dir;

  @Test
  void defaultReport_showsEveryPolicyWithItsDescriptionAndChartLine_offline() throws Exception {
    Path html = dir.resolve("report.html");
    StringWriter out = new StringWriter();
    CommandLine cmd = new CommandLine(new SimulateCommand());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(out));
    int rc = cmd.execute("--seeds", "42", "--html", html.toString());
    assertThat(rc).as("hami simulate: %s", out).isZero();
    String page = Files.readString(html, StandardCharsets.UTF_8);
    assertThat(page)
        .as("one offline file")
        .doesNotContain("src=\"http", "href=\"http", "url(http", "<script src", "<link ");

    try (HeadlessBrowser b = HeadlessBrowser.start(dir, "SimulatorReportE2E", "simulator report")) {
      b.driver().get(html.toUri().toString());
      String text = b.driver().findElement(By.tagName("body")).getText();
      for (String p : POLICIES) {
        assertThat(text).as("the report names %s", p).contains(p);
      }
      List<WebElement> descriptions = b.find("dt");
      assertThat(descriptions.stream().map(WebElement::getText).toList())
          .as("described policies")
          .contains("HAMi binpack", "HAMi spread", "FGD");
      assertThat(b.find("svg")).as("charts").isNotEmpty();
      assertThat(b.find("svg polyline, svg path").size())
          .as("chart lines: at least one per policy")
          .isGreaterThanOrEqualTo(POLICIES.size());
      assertThat(b.find("p.advice")).as("recommendation").hasSize(1);
      assertThat(b.find("p.advice").get(0).getText())
          .as("the recommendation names a policy")
          .containsAnyOf(POLICIES.toArray(String[]::new));
      b.screenshot("report");
    }
  }
}
