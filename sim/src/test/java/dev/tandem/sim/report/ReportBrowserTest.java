package dev.tandem.sim.report;

import dev.tandem.core.policies.TandemPolicy;
import dev.tandem.data.DataSource;
import dev.tandem.sim.engine.ProgressListener;
import dev.tandem.sim.engine.SimConfig;
import dev.tandem.sim.scenario.ScenarioSpec;
import dev.tandem.sim.workload.WorkloadSpec;
import dev.tandem.sim.engine.Recording;
import dev.tandem.sim.engine.SimulationResult;
import dev.tandem.sim.scenario.Scenario;
import dev.tandem.sim.scenario.ScenarioFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reports in a real browser (Debian's headless Chromium through its chromedriver, which .ci/run installs): every
 * figure is drawn as SVG, saves itself as an SVG file, uses the policy's one colour, and the per-GPU timeline switches
 * between policies. A script error would leave later figures undrawn, so "every chart has an SVG" also catches those.
 */
class ReportBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @TempDir Path dir;
    ChromeDriver browser;

    @BeforeEach
    void start() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromium-driver are not installed (Debian packages; .ci/run installs them)");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1300,1000", "--user-data-dir=" + dir.resolve("chromium"));
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build(), options);
    }

    @AfterEach
    void stop() {
        if (browser != null) browser.quit();
    }

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyFigureIsDrawnAsSvgInThePolicysColourAndSavesAsSvg() throws Exception {
        Scenario s = ScenarioFixtures.lucid(40, "batch", 2);
        List<SimulationResult> rs = List.of(s.run("fifo", ProgressListener.NONE, Recording.forReport(0)), s.run("tandem", ProgressListener.NONE, Recording.forReport(0)));
        Path page = dir.resolve("report.html");
        Files.writeString(page, HtmlReport.render(new Comparison(s.describe(), s.lowerBound(), rs)));
        browser.get(page.toUri().toString());

        List<Map<String, Object>> charts = (List<Map<String, Object>>) js("""
                return [...document.querySelectorAll('.chart')].map(el => {
                  const c = echarts.getInstanceByDom(el);
                  return { id: el.id, svg: el.querySelectorAll('svg').length, title: c ? c.getOption().title[0].text : null,
                           save: c ? c.getOption().toolbox[0].feature.saveAsImage.type : null,
                           url: c ? c.getDataURL({ type: 'svg' }).slice(0, 30) : null };
                });""");
        assertThat(charts).extracting(c -> c.get("id")).containsExactly("makespan", "plane", "jct", "slowdown", "fairness", "predicted", "timeline",
                "busy", "shared", "queue");
        for (Map<String, Object> c : charts) {
            assertThat((Long) c.get("svg")).as(c.get("id") + " drawn").isPositive();
            assertThat(c.get("save")).as(c.get("id") + " saves as").isEqualTo("svg");
            assertThat((String) c.get("url")).as(c.get("id") + " export").startsWith("data:image/svg+xml");
        }
        // the metrics table has a value under every heading, the GPU holds each policy began among them
        List<String> headings = (List<String>) js("return [...document.querySelectorAll('#metrics th')].map(th => th.textContent)");
        assertThat(headings).contains("preemptions", "GPU holds");
        List<String> tandemRow = (List<String>) js("return [...document.querySelectorAll('#metrics tr')][2].querySelectorAll('td').length === 0 ? [] :"
                + " [...[...document.querySelectorAll('#metrics tr')][2].querySelectorAll('td')].map(td => td.textContent)");
        assertThat(tandemRow).hasSameSizeAs(headings).doesNotContain("undefined");
        assertThat(tandemRow.get(headings.indexOf("GPU holds"))).isEqualTo(String.valueOf(rs.get(1).metrics().reservations()));
        // the lower bound is labelled in full in the makespan figure
        assertThat((String) js("return document.getElementById('makespan').textContent")).contains("lower bound (no schedule can finish sooner");
        // one colour per policy: tandem's series are the same colour in the CDFs, the plane and the scatter
        List<String> colours = (List<String>) js("""
                return ['jct', 'slowdown', 'fairness', 'plane', 'predicted'].map(id => echarts.getInstanceByDom(document.getElementById(id)).getOption()
                  .series.find(x => x.name === 'tandem').itemStyle.color);""");
        assertThat(colours).hasSize(5).containsOnly(colours.getFirst());
        assertThat(colours.getFirst()).isEqualTo(js("return policyColour('tandem')")).isNotEqualTo(js("return policyColour('fifo')"));

        // the plane's axes leave a margin around every point, also where the values are round numbers an axis would
        // start at (the demo's tandem has a mean JCT of 30.09 h): none sits on an axis line
        List<Boolean> inside = (List<Boolean>) js("""
                const c = echarts.getInstanceByDom(document.getElementById('plane'));
                c.setOption({ series: [{ data: [[50, 30]] }, { data: [[100, 60]] }] });
                const x = c.getModel().getComponent('xAxis', 0).axis.scale.getExtent(), y = c.getModel().getComponent('yAxis', 0).axis.scale.getExtent();
                const [left, bottom] = c.convertToPixel({ gridIndex: 0 }, [x[0], y[0]]), [right, top] = c.convertToPixel({ gridIndex: 0 }, [x[1], y[1]]);
                return [[50, 30], [100, 60]].map(v => c.convertToPixel({ gridIndex: 0 }, v))
                  .map(([px, py]) => px > left + 4 && px < right - 4 && py < bottom - 4 && py > top + 4);""");
        assertThat(inside).containsExactly(true, true);

        // the timeline shows tandem first, with a bar per stretch, and switches to FIFO
        String timelineTitle = "return echarts.getInstanceByDom(document.getElementById('timeline')).getOption().title[0].text";
        String bars = "return document.querySelectorAll('#timeline svg path, #timeline svg rect').length";
        assertThat((String) js(timelineTitle)).isEqualTo("Per-GPU timeline, tandem");
        long tandemBars = (Long) js(bars);
        assertThat(tandemBars).isGreaterThan(40);
        js("const s = document.getElementById('timeline-policy'); s.value = 'fifo'; s.dispatchEvent(new Event('change'));");
        assertThat((String) js(timelineTitle)).isEqualTo("Per-GPU timeline, fifo");
        assertThat((Long) js(bars)).isPositive();
        // the oracle's error is reported for tandem's co-located stretches
        assertThat((String) js("return document.getElementById('predicted-note').textContent")).contains("tandem 0.").contains("stretches");
    }

    @Test
    void theSweepReportDrawsLoadsBatchAndPairedRatiosAsSvg() throws Exception {
        var points = dev.tandem.sim.sweep.Sweep.run(List.of("fifo", "tandem"), List.of("1x4:RTX3090-24GB"), List.of("poisson:2", "poisson:4", "batch"), List.of(1L, 2L), 2,
                (cluster, load, seed) -> new ScenarioSpec(DataSource.LUCID_PROFILES.name(), DataSource.LUCID_PAIRS.name(), DataSource.LUCID_PAIRS.name(),
                        "v100", "auto", true, cluster, WorkloadSpec.of(20, load, "1", 1800, 36000, seed), SimConfig.defaults(), TandemPolicy.Config.defaults()),
                n -> {});
        Path page = dir.resolve("sweep.html");
        Files.writeString(page, new dev.tandem.sim.sweep.SweepReport(Map.of("policies", List.of("fifo", "tandem"), "clusters", List.of("1x4:RTX3090-24GB"),
                "loads", List.of("poisson:2", "poisson:4", "batch"), "seeds", List.of(1, 2), "jobs", 20), points).html());
        browser.get(page.toUri().toString());
        @SuppressWarnings("unchecked")
        List<String> titles = (List<String>) js("""
                return [...document.querySelectorAll('.chart')].filter(el => el.querySelector('svg')).map(el => echarts.getInstanceByDom(el).getOption().title[0].text);""");
        // two line charts over the Poisson loads only, a paired forest plot and a plane per load (batch included)
        assertThat(titles).hasSize(2 + 3 + 3);
        assertThat(titles.subList(0, 2)).allMatch(t -> t.endsWith("Poisson arrivals"));
        assertThat(titles).filteredOn(t -> t.startsWith("FIFO / policy, paired")).hasSize(3).anyMatch(t -> t.endsWith("batch"));
        // the Poisson charts' x axis is the arrival rate, without batch
        assertThat(js("return echarts.getInstanceByDom(document.querySelector('.chart')).getOption().series[0].data.map(d => d[0])"))
                .isEqualTo(List.of(2L, 4L));
    }
}
