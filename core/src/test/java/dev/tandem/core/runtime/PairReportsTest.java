package dev.tandem.core.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A co-located pair goes to the online model once per placement, when both of its jobs are measured. */
class PairReportsTest {
    static final class J {
        final String id;
        boolean measured, reported;

        J(String id) { this.id = id; }
    }

    static final PairReports.Side<J> SIDE = new PairReports.Side<>() {
        @Override public boolean measured(J j) { return j.measured; }

        @Override public boolean reported(J j) { return j.reported; }

        @Override public void markReported(J j) { j.reported = true; }
    };

    @Test
    void aPairIsReportedOnceBothAreMeasuredAndAgainOnlyAfterItMoves() {
        J a = new J("a"), b = new J("b");
        List<String> reports = new ArrayList<>();
        a.measured = true;
        assertThat(PairReports.report(a, b, SIDE, (x, y) -> reports.add(x.id + y.id))).as("b not measured yet").isFalse();
        b.measured = true;
        assertThat(PairReports.report(b, a, SIDE, (x, y) -> reports.add(x.id + y.id))).isTrue();
        // asked again (the daemon's next round, the pair's other GPUs in the simulator, from either side): not again
        assertThat(PairReports.report(a, b, SIDE, (x, y) -> reports.add(x.id + y.id))).isFalse();
        assertThat(PairReports.report(b, a, SIDE, (x, y) -> reports.add(x.id + y.id))).isFalse();
        assertThat(PairReports.report(a, a, SIDE, (x, y) -> reports.add(x.id + y.id))).as("a job is no pair with itself").isFalse();
        assertThat(reports).containsExactly("ba");
        // a moved (its world clears its flag and its measurement), and is measured again beside c
        J c = new J("c");
        a.reported = false;
        c.measured = true;
        assertThat(PairReports.report(a, c, SIDE, (x, y) -> reports.add(x.id + y.id))).isTrue();
        assertThat(reports).containsExactly("ba", "ac");
    }
}
