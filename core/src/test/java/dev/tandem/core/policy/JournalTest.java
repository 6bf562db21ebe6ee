package dev.tandem.core.policy;

import dev.tandem.core.model.Job;
import dev.tandem.core.model.WorkloadSignature;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The ring of changes a world keeps for the policies that follow it. */
class JournalTest {
    private static Job job(String id) {
        return new Job(id, "u", 0, 1, new WorkloadSignature("A", "d", 32, false), 100, 1000, 0);
    }

    @Test void aReaderGetsEveryChangeSinceItsMarkInOrder() {
        RunningJournal journal = new RunningJournal(4);
        Job a = job("a"), b = job("b");
        journal.started(a);
        long mark = journal.count();
        journal.started(b);
        journal.stopped(a);
        List<String> seen = new ArrayList<>();
        assertThat(journal.readSince(mark, (j, started) -> seen.add(j.id() + (started ? "+" : "-")))).isTrue();
        assertThat(seen).containsExactly("b+", "a-");
        seen.clear();
        assertThat(journal.readSince(journal.count(), (j, started) -> seen.add(j.id()))).isTrue();
        assertThat(seen).isEmpty();
    }

    @Test void aJobReshownReachesReadersThatAskForItInItsPlaceAndNoOthers() {
        RunningJournal journal = new RunningJournal(8);
        Job a = job("a"), b = job("b");
        journal.started(a);
        journal.reshown(a);
        journal.started(b);
        List<String> seen = new ArrayList<>();
        assertThat(journal.readSince(0, (j, started) -> seen.add(j.id() + (started ? "+" : "-")))).isTrue();
        assertThat(seen).as("a reader that keys nothing by what a job shows").containsExactly("a+", "b+");
        seen.clear();
        assertThat(journal.readSince(0, new Journal.Reader<Job>() {
            @Override public void changed(Job j, boolean started) { seen.add(j.id() + (started ? "+" : "-")); }

            @Override public void updated(Job j) { seen.add(j.id() + "~"); }
        })).isTrue();
        assertThat(seen).containsExactly("a+", "a~", "b+");
    }

    @Test void aReaderThatFellBehindTheRingIsToldSoAndGetsNothing() {
        SoleTenantJournal journal = new SoleTenantJournal(3);
        for (int i = 0; i < 5; i++) journal.alone(job("j" + i));
        List<String> seen = new ArrayList<>();
        assertThat(journal.readSince(1, (j, alone) -> seen.add(j.id()))).as("4 changes behind a ring of 3").isFalse();
        assertThat(journal.readSince(2, (j, alone) -> seen.add(j.id()))).as("3 behind: all still kept").isTrue();
        assertThat(seen).containsExactly("j2", "j3", "j4");
        assertThat(journal.readSince(-1, (j, alone) -> seen.add(j.id()))).isFalse();
        assertThat(journal.readSince(6, (j, alone) -> seen.add(j.id()))).as("a mark from another journal").isFalse();
    }
}
