package dev.tandem.server.sched;

import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.store.Change;
import dev.tandem.server.store.Database;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.Role;
import dev.tandem.server.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A round's jobs by id answer as the map of them the round used to build: look-ups, replaced records, order. */
class RoundJobsTest {
    @TempDir Path dir;

    @Test
    void answersAsAMapOfTheRoundsJobs() {
        try (Store store = new Store(Database.open(null, dir))) {
            store.createUser("admin", Role.ADMIN, "a".repeat(64), null, "test", 1);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                ids.add(store.insertJob(new NewJob("j" + i, List.of("train.py"), Map.of(), "/tmp", 1, 0, 100L,
                        new WorkloadSignature("ResNet18", "CIFAR-10", 32, false), null, JobControls.NONE), "admin", 0).id());
            }
            // job 3 finished, but the round still knows it (its run is ending): it comes after the unfinished ones
            store.transition(ids.get(3), JobState.NOT_TERMINAL, JobState.CANCELLED, "admin", "test", new Change(), 1);
            List<JobRecord> unfinished = store.unfinishedJobs();
            assertThat(unfinished).hasSize(6);

            RoundJobs jobs = new RoundJobs(unfinished);
            Map<Long, JobRecord> expected = new LinkedHashMap<>();
            for (JobRecord r : unfinished) expected.put(r.id(), r);
            JobRecord ended = store.job(ids.get(3)).orElseThrow();
            for (Map<Long, JobRecord> m : List.of(jobs, expected)) m.put(ended.id(), ended);
            for (long id : ids) assertThat(jobs.get(id)).as("job " + id).isSameAs(expected.get(id));
            assertThat(jobs.get(ids.get(6) + 1)).isNull();
            assertThat(jobs.get(ids.get(0) - 1)).isNull();
            assertThat(jobs.containsKey(ids.get(3))).isTrue();
            assertThat(jobs.containsKey(-1L)).isFalse();
            assertThat(jobs.get("1")).as("a key that is not a Long").isNull();

            // a record the round changed replaces the one it began with, as a map's put
            store.update(ids.get(5), new Change().set(Change.Column.PROGRESS_ITER, 5L), 2);
            JobRecord updated = store.job(ids.get(5)).orElseThrow();
            assertThat(jobs.put(updated.id(), updated)).isSameAs(expected.put(updated.id(), updated));
            assertThat(jobs.get(ids.get(5))).isSameAs(updated);

            assertThat(jobs).hasSize(7);
            assertThat(new ArrayList<>(jobs.entrySet())).containsExactlyElementsOf(new ArrayList<>(expected.entrySet()));
            assertThat(new ArrayList<>(jobs.values())).containsExactlyElementsOf(new ArrayList<>(expected.values()));
            assertThatThrownBy(() -> jobs.put(ids.get(0), updated)).isInstanceOf(IllegalArgumentException.class);
            List<JobRecord> reversed = new ArrayList<>(unfinished.reversed());
            assertThatThrownBy(() -> new RoundJobs(reversed)).hasMessageContaining("not in id order");
        }
    }
}
