package dev.tandem.server;

import dev.tandem.server.exec.Sharing;
import dev.tandem.server.testing.FakeGpuHost;
import dev.tandem.server.testing.TestApi;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's GPU grid in a real browser (Debian's headless Chromium, as {@link DashboardTest}) on a host whose
 * GPU 0 runs someone else's process: the GPU is drawn as not scheduled, with the reason the API gives, and becomes
 * idle again when the process leaves. nvidia-smi is the test double, listing a real process as the real one would.
 */
class DashboardUnavailableGpuTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir Path dir;

    @Test
    void aGpuBusyWithSomeoneElsesProcessIsShownAsNotScheduledWithItsReason() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromium-driver are not installed (Debian packages; .ci/run installs them)");
        FakeGpuHost host = FakeGpuHost.install(dir.resolve("host"), "h100x2");
        Process notebook = new ProcessBuilder("sleep", "300").start(); // someone's work, started outside tandem
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100", "--user-data-dir=" + dir.resolve("chromium"));
        WebDriver browser = null;
        try (TandemServer server = TandemServer.start(host.config(dir.resolve("state"), "fifo", Sharing.TIME_SLICING))) {
            TestApi api = new TestApi(server.url());
            String admin = Files.readString(server.adminTokenFile()).strip();
            host.computeApps(ForeignProcessesTest.GPU0 + ", " + notebook.pid() + ", /usr/bin/sleep, 1500\n");
            TestApi.await(LONG, "GPU 0 to be unavailable", () -> !api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").isNull());
            String why = api.get("/gpus", admin).json().get("gpus").get(0).get("unavailable").asText();

            browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build(), options);
            browser.get(server.url() + "/");
            WebElement field = new WebDriverWait(browser, LONG).until(d -> d.findElement(By.name("token")));
            field.sendKeys(admin);
            browser.findElement(By.cssSelector("form.login button")).click();
            WebDriver b = browser;
            new WebDriverWait(browser, LONG).withMessage("GPU 0's reason on the page").ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                    .until(d -> text(b, "gpu-0-unavailable").equals(why));
            assertThat(why).contains("not tandem's").contains("pid " + notebook.pid());
            assertThat(text(browser, "gpu-0")).contains("not scheduled");
            assertThat(text(browser, "gpu-1")).contains("idle").doesNotContain("not scheduled");

            notebook.destroy();
            host.computeApps("");
            new WebDriverWait(browser, LONG).withMessage("GPU 0 idle again once the process left").ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                    .until(d -> text(b, "gpu-0-unavailable").isEmpty() && text(b, "gpu-0").contains("idle"));
        } finally {
            if (browser != null) browser.quit();
            notebook.destroyForcibly();
        }
    }

    private static String text(WebDriver browser, String testId) {
        List<WebElement> e = browser.findElements(By.cssSelector("[data-test='" + testId + "']"));
        return e.isEmpty() ? "" : e.getFirst().getText();
    }
}
