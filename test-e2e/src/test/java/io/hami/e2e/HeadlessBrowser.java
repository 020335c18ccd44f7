package io.hami.e2e;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Debian chromium driven through chromedriver, for the browser tests. Skips the test when
 * either is missing, unless {@code -Dhami.e2e.requireBrowser=true} (as {@code .ci/run} sets), which
 * makes their absence a failure. Screenshots go to {@code target/screenshots/}.
 */
public final class HeadlessBrowser implements AutoCloseable {
  private final WebDriver driver;
  private final String testName;

  private HeadlessBrowser(WebDriver driver, String testName) {
    this.driver = driver;
    this.testName = testName;
  }

  /**
   * Starts chromium with its profile under {@code dir}; {@code what} names the page under test in
   * the message when the browser is missing.
   */
  public static HeadlessBrowser start(Path dir, String testName, String what) {
    Optional<Path> chromium = onPath("chromium", "chromium-browser");
    Optional<Path> chromedriver = onPath("chromedriver");
    if (chromium.isEmpty() || chromedriver.isEmpty()) {
      String missing =
          (chromium.isEmpty() ? "chromium " : "") + (chromedriver.isEmpty() ? "chromedriver " : "");
      String why =
          "the "
              + what
              + "'s browser test needs Debian's chromium and chromium-driver"
              + " (apt-get install -y chromium chromium-driver); missing: "
              + missing.strip();
      if (Boolean.getBoolean("hami.e2e.requireBrowser")) {
        Assertions.fail(why + " (hami.e2e.requireBrowser is true)");
      }
      Assumptions.abort(why);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.get().toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        "--user-data-dir=" + dir.resolve("chromium-profile"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromedriver.get().toFile())
            .usingAnyFreePort()
            .build();
    WebDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    return new HeadlessBrowser(driver, testName);
  }

  private static Optional<Path> onPath(String... names) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String name : names) {
      for (String d : path.split(File.pathSeparator)) {
        Path p = Path.of(d, name);
        if (Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  public WebDriver driver() {
    return driver;
  }

  public List<WebElement> find(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  /** Saves the page as {@code target/screenshots/<test>-<name>.png}. */
  public void screenshot(String name) throws IOException {
    Path out = ControlPlaneExtension.moduleDir().resolve("target/screenshots");
    Files.createDirectories(out);
    File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(),
        out.resolve(testName + "-" + name + ".png"),
        StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public void close() {
    driver.quit();
  }
}
