package dev.tandem.core.runtime;

import dev.tandem.core.policy.Decision;
import dev.tandem.core.runtime.Lifecycle.Phase;
import dev.tandem.core.runtime.Lifecycle.Step;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one life cycle: every step from every phase, written out as a table. */
class LifecycleTest {
    /** Where each step leads from each phase; a phase missing from a step's row refuses it. */
    static final Map<Step, Map<Phase, Phase>> TABLE = new EnumMap<>(Step.class);

    static {
        TABLE.put(Step.SUBMIT, Map.of(Phase.NEW, Phase.WAITING));
        TABLE.put(Step.START, Map.of(Phase.WAITING, Phase.RUNNING));
        TABLE.put(Step.SUSPEND, Map.of(Phase.RUNNING, Phase.WAITING));
        TABLE.put(Step.MOVE, Map.of(Phase.RUNNING, Phase.RUNNING));
        TABLE.put(Step.REQUEUE, Map.of(Phase.RUNNING, Phase.WAITING));
        TABLE.put(Step.FINISH, Map.of(Phase.RUNNING, Phase.DONE));
        TABLE.put(Step.FAIL, Map.of(Phase.WAITING, Phase.DONE, Phase.RUNNING, Phase.DONE));
        TABLE.put(Step.CANCEL, Map.of(Phase.WAITING, Phase.DONE, Phase.RUNNING, Phase.DONE));
    }

    @Test
    void everyStepFromEveryPhaseLeadsWhereTheTableSays() {
        for (Step step : Step.values()) {
            for (Phase from : Phase.values()) {
                Phase to = TABLE.get(step).get(from);
                if (to != null) {
                    assertThat(Lifecycle.after(from, step)).as(step + " from " + from).isEqualTo(to);
                    assertThat(Lifecycle.refusal(from, step)).isEmpty();
                } else {
                    assertThatThrownBy(() -> Lifecycle.after(from, step)).as(step + " from " + from).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining(step.rule());
                    assertThat(Lifecycle.refusal(from, step)).isPresent();
                }
            }
        }
    }

    @Test
    void aDoneJobNeverMovesAndNothingGoesBackToNew() {
        for (Phase p : Phase.values()) {
            assertThat(Lifecycle.allows(Phase.DONE, p)).as("done -> " + p).isFalse();
            assertThat(Lifecycle.allows(p, Phase.NEW)).as(p + " -> new").isFalse();
        }
        assertThat(Lifecycle.allows(Phase.WAITING, Phase.WAITING)).as("a waiting job has no step that keeps it waiting").isFalse();
        assertThat(Lifecycle.allows(Phase.RUNNING, Phase.RUNNING)).as("a move").isTrue();
        assertThat(Lifecycle.allows(Phase.NEW, Phase.RUNNING)).as("only through the queue").isFalse();
        assertThat(Lifecycle.allows(Phase.WAITING, Phase.DONE)).as("cancelled or given up").isTrue();
    }

    @Test
    void refusalsSayWhereTheJobIsAndTheRule() {
        assertThat(Lifecycle.refusal(Phase.RUNNING, Step.START)).contains("is running: only a waiting job is started");
        assertThat(Lifecycle.refusal(Phase.WAITING, Step.SUSPEND)).contains("is waiting: only a running job is suspended or moved");
        assertThat(Lifecycle.refusal(Phase.DONE, Step.CANCEL)).contains("is done: a job that is done stays done");
        assertThat(Lifecycle.refusal(Phase.NEW, Step.START)).contains("is not submitted yet: only a waiting job is started");
    }

    @Test
    void aDecisionAsksTheStepOfItsKind() {
        assertThat(Lifecycle.stepOf(new Decision.Start("a", List.of(0), ""))).isEqualTo(Step.START);
        assertThat(Lifecycle.stepOf(new Decision.Preempt("a", ""))).isEqualTo(Step.SUSPEND);
        assertThat(Lifecycle.stepOf(new Decision.Migrate("a", List.of(1), ""))).isEqualTo(Step.MOVE);
        assertThatThrownBy(() -> Lifecycle.stepOf(new Decision.Reserve("a", List.of(0), 60, ""))).isInstanceOf(IllegalArgumentException.class);
    }
}
