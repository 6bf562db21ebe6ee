package dev.tandem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.data.DataSource;
import dev.tandem.data.ProfileReader;
import dev.tandem.server.testing.TestApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web dashboard in a real browser (Debian's headless Chromium through its chromedriver, which .ci/run installs):
 * jobs submitted through the API on simulated GPUs appear live in the GPU grid, the queue shows each job's reason
 * exactly as the API and {@code tandem show} give it, decisions are listed, the job page has history and output, and a
 * user sees only its own jobs. Leaves a screenshot in target/dashboard.png (the one in server/docs is from this test).
 */
class DashboardTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final WorkloadSignature RESNET = new WorkloadSignature("ResNet18", "CIFAR-10", 32, false);
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final double SCALE = 60;

    @TempDir Path dir;
    TandemServer server;
    TestApi api;
    String admin;
    WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromium-driver are not installed (Debian packages; .ci/run installs them)");
        server = TandemServer.start(ServeOptionsTest.parse("--executor", "simulated", "--cluster", "1x2:RTX3090-24GB", "--time-scale", String.valueOf(SCALE),
                "--port", "0", "--state-dir", dir.resolve("state").toString(), "--tick", "100ms", "--round", "500ms", "--profile-time", "1s",
                "--observe-time", "1s", "--known-profiles", "none")); // the first job of the workload is profiled alone, as on a new site
        api = new TestApi(server.url());
        admin = Files.readString(server.adminTokenFile()).strip();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100", "--user-data-dir=" + dir.resolve("chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) browser.quit();
        if (server != null) server.close();
    }

    private long submit(String token, long seconds, Map<String, Object> extra) {
        JobProfile p = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0)).find(RESNET).orElseThrow();
        Map<String, Object> body = new java.util.HashMap<>(extra);
        body.put("argv", List.of("train.py"));
        body.put("iterations", (long) (p.soloSpeed() * SCALE * seconds));
        body.put("signature", Map.of("model", RESNET.model(), "dataset", RESNET.dataset(), "batch_size", RESNET.batchSize(), "amp", false));
        return api.submit(token, TestApi.json(body));
    }

    private String text(String testId) {
        List<WebElement> e = browser.findElements(By.cssSelector("[data-test='" + testId + "']"));
        return e.isEmpty() ? "" : e.getFirst().getText();
    }

    /**
     * Waits until {@code cond} holds. The page re-renders its parts as the daemon's state changes, so an element found
     * by one look may be gone by the next ({@code StaleElementReferenceException}, seen once in CI with the machine
     * busy): that is a look to retry, as one that found nothing.
     */
    private void await(String what, java.util.function.BooleanSupplier cond) {
        new WebDriverWait(browser, LONG).withMessage(what).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> cond.getAsBoolean());
    }

    private void signIn(String token) {
        browser.get(server.url() + "/");
        WebElement field = new WebDriverWait(browser, LONG).until(d -> d.findElement(By.name("token")));
        field.sendKeys(token);
        browser.findElement(By.cssSelector("form.login button")).click();
    }

    @Test
    void jobsAppearLiveWithTheirReasonsPartnersAndHistory() throws Exception {
        TestApi.Response created = api.post("/users", admin, TestApi.json(Map.of("name", "alice", "unix_user", System.getProperty("user.name"), "allow_root", true)));
        String alice = created.json().get("token").asText();

        signIn("not-a-token");
        await("the login to be refused", () -> text("login-error").contains("invalid token"));

        signIn(admin);
        await("the live connection", () -> text("connection").equals("live"));
        assertThat(text("who")).startsWith("admin (admin) · policy tandem");
        assertThat(text("gpus-busy")).isEqualTo("0 / 2");

        long profiled = submit(admin, 3, Map.of());
        TestApi.await(LONG, "the workload to be profiled", () -> !api.get("/profiles", admin).json().get("profiles").isEmpty());
        TestApi.await(LONG, "the profiling job to end", () -> api.state(admin, profiled).equals("succeeded"));
        long[] pair = {submit(admin, 600, Map.of()), submit(admin, 600, Map.of()), submit(admin, 600, Map.of()), submit(admin, 600, Map.of())};
        long held = submit(alice, 60, Map.of("hold", true));
        long after = submit(alice, 60, Map.of("after", List.of(held)));

        // the grid fills live: two GPUs, each shared by two of the admin's jobs, with predicted and observed speeds
        await("both GPUs shared on the page", () -> text("gpus-shared").equals("2"));
        assertThat(text("gpus-busy")).isEqualTo("2 / 2");
        TestApi.await(LONG, "observed speeds", () -> java.util.Arrays.stream(pair).allMatch(id -> !api.job(admin, id).get("observed_speed").isNull()));
        for (long id : pair) {
            await("job " + id + " on the grid with its observed speed", () -> text("gpu-job-" + id).matches("(?s).*observed \\d\\.\\d\\dx.*"));
            assertThat(text("gpu-job-" + id)).contains("predicted ");
        }
        // the queue says why, in the words of the API (and so of tandem show)
        for (long id : List.of(held, after)) {
            String reason = api.job(admin, id).get("reason").asText();
            await("job " + id + "'s reason on the page", () -> text("reason-" + id).equals(reason));
        }
        assertThat(text("reason-" + held)).isEqualTo("held; `tandem release " + held + "` lets it run");
        assertThat(text("decisions")).contains("paired").contains("job " + pair[3]);
        await("a wait time", () -> !text("mean-wait").equals("–"));
        await("a measured gain from sharing", () -> text("gain").startsWith("+"));
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", "dashboard.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);

        // a job's page: state history, partners, output followed live
        browser.findElement(By.cssSelector("[data-test='gpu-job-" + pair[0] + "']")).click();
        await("the job page", () -> text("job-page").contains("Job " + pair[0]));
        assertThat(text("job-state")).isEqualTo("paired");
        JsonNode job = api.job(admin, pair[0]);
        assertThat(text("job-partners")).contains(String.valueOf(job.get("partners").get(0).asLong()));
        assertThat(text("job-events")).contains("→ pending").contains("→ paired").contains("scheduler");
        await("its output", () -> text("job-log").contains("tandem:progress iter="));
        String before = text("job-log");
        await("more output, live", () -> text("job-log").length() > before.length());

        // alice sees every GPU but not the admin's jobs, and only her own queue
        browser.findElement(By.cssSelector("header button")).click();
        signIn(alice);
        await("alice's live view", () -> text("who").startsWith("alice (user)"));
        await("alice's queue", () -> !text("reason-" + held).isEmpty());
        assertThat(browser.findElements(By.cssSelector(".chip.other"))).hasSize(4);
        assertThat(browser.findElements(By.cssSelector("[data-test^='gpu-job-']"))).isEmpty();
        assertThat(text("decisions")).doesNotContain("job " + pair[0]);

        // the job controls of the CLI, on the job page: release the held job, cancel the one after it
        browser.get(server.url() + "/#/jobs/" + held);
        await("the held job's page", () -> text("job-page").contains("Job " + held));
        browser.findElement(By.cssSelector("[data-test='release']")).click();
        TestApi.await(LONG, "the job to be released", () -> !api.job(admin, held).get("held").asBoolean());
        await("the page to offer hold again", () -> !browser.findElements(By.cssSelector("[data-test='hold']")).isEmpty());
        assertThat(history(held)).contains("released by alice");
        browser.get(server.url() + "/#/jobs/" + after);
        await("the dependent job's page", () -> text("job-page").contains("Job " + after));
        browser.findElement(By.cssSelector("[data-test='cancel']")).click();
        await("it to show cancelled", () -> text("job-state").equals("cancelled"));
        assertThat(api.state(admin, after)).isEqualTo("cancelled");
        browser.get(server.url() + "/#/jobs/" + pair[0]);
        await("another user's job to be absent", () -> text("job-error").contains("job " + pair[0] + " not found"));
    }

    private List<String> history(long id) {
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode e : api.job(admin, id).get("events")) out.add(e.get("reason").asText());
        return out;
    }
}
