package dev.tandem.sim.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes a self-contained HTML report: the metrics table, makespan vs FIFO and vs the lower bound, the makespan/JCT
 * plane, JCT, slowdown and finish-time-fairness CDFs, predicted vs true speed of the co-located stretches, a per-GPU
 * timeline, GPUs busy and shared and queue length over time. The ECharts library (Apache-2.0) is inlined from its
 * webjar, so the page needs no network; charts are SVG and each saves itself as an SVG file.
 */
public final class HtmlReport {
    private static final String ECHARTS = "/META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    private static final String TEMPLATE = "/tandem/report/report.html";
    /** What both reports share: one colour per policy, SVG charts that save themselves. */
    private static final String FIGURES = "/tandem/report/figures.js";

    private HtmlReport() {}

    public static String render(Comparison c) {
        return renderTemplate(TEMPLATE, c.chartData(600).toString());
    }

    /** Fills a report template: the ECharts library inlined, and the data as a JSON literal. */
    public static String renderTemplate(String template, String json) {
        String data = json.replace("</", "<\\/"); // keep "</script>" out of the inline script
        return resource(template).replace("/*ECHARTS*/", resource(ECHARTS)).replace("/*FIGURES*/", resource(FIGURES)).replace("/*DATA*/null", data);
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
