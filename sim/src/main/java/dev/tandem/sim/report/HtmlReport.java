package dev.tandem.sim.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a self-contained HTML report: the metrics table, makespan vs FIFO and vs the lower bound, JCT CDFs,
 * GPUs busy and shared over time, and queue length over time. The ECharts library (Apache-2.0) is inlined from
 * its webjar, so the page needs no network.
 */
public final class HtmlReport {
    private static final String ECHARTS = "/META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    private static final String TEMPLATE = "/tandem/report/report.html";

    private HtmlReport() {}

    public static String render(Comparison c) {
        String data = c.chartData(600).toString().replace("</", "<\\/");
        return resource(TEMPLATE)
                .replace("/*ECHARTS*/", resource(ECHARTS))
                .replace("/*DATA*/null", data);
    }

    public static void write(Comparison c, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.writeString(file, render(c), StandardCharsets.UTF_8);
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
