package dev.tandem.core.runtime;

import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryLessonsTest {
    final WorkloadSignature bert = new WorkloadSignature("BERT", "SQuAD", 32, false);
    final WorkloadSignature resnet = new WorkloadSignature("ResNet18", "CIFAR-10", 64, false);

    @Test
    void aCrashKeepsThePairApartInBothOrdersAndBudgetsTheCrashedWorkloadWhatItsPartnerLeftFree() {
        MemoryLessons lessons = new MemoryLessons();
        MemoryLessons.Crash crash = lessons.crashed(bert, 9_000, resnet, 14_000, 24_576);
        assertThat(crash).isEqualTo(new MemoryLessons.Crash(24_576 - 14_000 + 1, true));
        assertThat(lessons.pairs()).containsExactlyInAnyOrder(OutOfMemoryRule.pairKey(bert, resnet), OutOfMemoryRule.pairKey(resnet, bert));
        assertThat(lessons.budgets()).containsExactly(Map.entry(bert, 10_577L));
        // a later crash next to a lighter partner teaches a smaller budget: the larger one stays
        assertThat(lessons.crashed(bert, 9_000, resnet, 4_000, 24_576)).isEqualTo(new MemoryLessons.Crash(20_577, true));
        assertThat(lessons.crashed(bert, 9_000, resnet, 14_000, 24_576).raised()).isFalse();
        assertThat(lessons.budgets()).containsExactly(Map.entry(bert, 20_577L));
    }

    @Test
    void aMeasuredPeakRaisesABudgetOnlyUpwardsAndKeptLessonsComeBack() {
        MemoryLessons lessons = new MemoryLessons(Map.of(resnet, 5_000L), List.of(OutOfMemoryRule.pairKey(bert, resnet)));
        assertThat(lessons.raise(resnet, 4_000)).isFalse();
        assertThat(lessons.raise(resnet, 6_000)).isTrue();
        assertThat(lessons.raise(resnet, 6_000)).as("the same budget again is nothing new (nothing to write through)").isFalse();
        assertThat(lessons.budgets()).containsExactly(Map.entry(resnet, 6_000L));
        assertThat(lessons.pairs()).containsExactly(OutOfMemoryRule.pairKey(bert, resnet));
    }
}
