package dev.tandem.server.sched;

import dev.tandem.core.compat.CompatibilityModels;
import dev.tandem.core.compat.OnlineCorrectedModel;
import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.model.ProfileStore;
import dev.tandem.server.store.Store;
import dev.tandem.data.DataSource;
import dev.tandem.data.TrainingPairs;
import dev.tandem.data.ProfileReader;

import java.util.List;

/**
 * The policy's compatibility oracle: tandem's kNN model trained on Lucid's measured pairs (its features are
 * solo utilisations, which the profiler measures here too), corrected online by the co-location speeds this
 * daemon has measured, including those stored by earlier runs of it.
 */
public final class Oracle {
    private Oracle() {}

    /**
     * The oracle {@code tandem serve --model} names, fitted as {@code tandem simulate} fits it on the same pairs (auto
     * is knn: Lucid's profiles carry utilisation).
     */
    public static OnlineCorrectedModel build(Store store, String name) {
        return build(store, name, true);
    }

    /** @param online false: the model is not corrected by measured speeds, as {@code --no-online} ({@link Observations} feeds it none) */
    public static OnlineCorrectedModel build(Store store, String name, boolean online) {
        ProfileStore lucid = new ProfileStore(ProfileReader.read(DataSource.LUCID_PROFILES, 0));
        List<PairObservation> measured = TrainingPairs.load(DataSource.LUCID_PAIRS, lucid, "v100");
        OnlineCorrectedModel model = new OnlineCorrectedModel(CompatibilityModels.fit(name, measured, false));
        if (!online) return model; // speeds stored by earlier daemons are not replayed into it either
        for (Store.Observation o : store.observations()) model.observe(o.a(), o.b(), o.gpus(), o.speedA(), o.speedB());
        return model;
    }
}
