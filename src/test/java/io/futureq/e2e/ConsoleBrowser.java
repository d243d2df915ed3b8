package io.futureq.e2e;

import io.futureq.testing.Await;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * A real headless Chromium (Debian's {@code chromium}, driven through {@code chromedriver}) on the console. Tests
 * that need it skip, saying why, where either is not installed.
 */
final class ConsoleBrowser implements ConsolePage, AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  final ChromeDriver driver;
  private final String base;

  private ConsoleBrowser(ChromeDriver driver, String base) {
    this.driver = driver;
    this.base = base;
  }

  static ConsoleBrowser open(String base) {
    Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "chromium and chromium-driver are not installed here (apt-get install chromium chromium-driver)");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1400,1000", "--lang=en-GB");
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
    return new ConsoleBrowser(new ChromeDriver(service, options), base);
  }

  @Override
  public void signIn(String token) {
    // The tab's token is dropped on a page of the same origin that runs no script, so no call goes out with it.
    driver.get(base + "/console.css");
    ((JavascriptExecutor) driver).executeScript("sessionStorage.clear();");
    driver.get(base + "/");
    if (token != null) {
      WebElement field = await("the sign-in form", By.id("token"));
      field.sendKeys(token);
      driver.findElement(By.id("sign-in-button")).click();
    }
    await("the navigation once signed in", By.id("nav-overview"));
  }

  @Override
  public void go(String hash) {
    driver.get(base + "/" + hash);
  }

  /** The first element {@code by} finds and shows, once it does. */
  WebElement await(String what, By by) {
    Await.until(what, Duration.ofSeconds(20), () -> driver.findElements(by).stream().anyMatch(WebElement::isDisplayed));
    return driver.findElements(by).stream().filter(WebElement::isDisplayed).findFirst().orElseThrow();
  }

  @Override
  public void awaitShown(String what, String css) {
    await(what, By.cssSelector(css));
  }

  @Override
  public long number(String script) {
    return ((Number) ((JavascriptExecutor) driver).executeScript(script)).longValue();
  }

  @Override
  public void screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      Files.write(SCREENSHOTS.resolve(name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every error the page logged since the last call (console errors, failed loads, uncaught exceptions). */
  @Override
  public List<String> errors() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::getMessage).toList();
  }

  @Override
  public void close() {
    driver.quit();
  }
}
