package dev.tandem.server;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The dashboard's GPU grid in a real browser (Debian's headless Chromium, as {@link DashboardTest}) while tandem holds
 * both simulated GPUs for alice's waiting gang ({@link SimulatedServeTest#gangHeld}): alice sees which job of hers they
 * are held for, with a link to it; bob sees that they are held, not for which job.
 */
class DashboardHeldGpuTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir Path dir;

    @Test
    void heldGpusSayForWhomToTheOwnerOnly() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromium-driver are not installed (Debian packages; .ci/run installs them)");
        SimulatedServeTest.HeldGang h = SimulatedServeTest.gangHeld(dir);
        try (TandemServer server = h.server()) {
            for (String[] who : List.of(new String[] {h.alice(), "held for job " + h.gang()}, new String[] {h.bob(), "held for another user's job"})) {
                WebDriver browser = open(server, who[0]);
                try {
                    new WebDriverWait(browser, LONG).withMessage("GPU 1's hold on the page").ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                            .until(d -> text(d, "gpu-1-held").startsWith(who[1] + ", free about "));
                    List<WebElement> links = browser.findElements(By.cssSelector("[data-test='gpu-1-held'] a"));
                    if (who[0].equals(h.alice())) {
                        org.assertj.core.api.Assertions.assertThat(links).singleElement()
                                .satisfies(a -> org.assertj.core.api.Assertions.assertThat(a.getAttribute("href")).endsWith("#/jobs/" + h.gang()));
                    } else {
                        org.assertj.core.api.Assertions.assertThat(links).isEmpty();
                    }
                } finally {
                    browser.quit();
                }
            }
        }
    }

    private WebDriver open(TandemServer server, String token) {
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new", "--no-sandbox",
                "--disable-dev-shm-usage", "--window-size=1400,1100", "--user-data-dir=" + dir.resolve("chromium-" + Math.abs(token.hashCode())));
        WebDriver browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build(), options);
        browser.get(server.url() + "/");
        new WebDriverWait(browser, LONG).until(d -> d.findElement(By.name("token"))).sendKeys(token);
        browser.findElement(By.cssSelector("form.login button")).click();
        return browser;
    }

    private static String text(WebDriver browser, String testId) {
        List<WebElement> e = browser.findElements(By.cssSelector("[data-test='" + testId + "']"));
        return e.isEmpty() ? "" : e.getFirst().getText();
    }
}
