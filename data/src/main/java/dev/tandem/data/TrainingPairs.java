package dev.tandem.data;

import dev.tandem.core.compat.PairObservation;
import dev.tandem.core.model.ProfileStore;

import java.util.ArrayList;
import java.util.List;

/** Measured pairs (Lucid's CSV or Gavel's JSON) as training observations of the compatibility model. */
public final class TrainingPairs {
    private TrainingPairs() {}

    /** Training pairs as observations with both jobs' profiles; pairs with an unprofiled job are an error. */
    public static List<PairObservation> load(DataSource src, ProfileStore profiles, String gavelGpu) {
        List<MeasuredPair> pairs = src.isJson() ? GavelThroughputReader.read(src, gavelGpu).pairs() : LucidPairReader.read(src, true);
        List<PairObservation> out = new ArrayList<>();
        for (MeasuredPair p : pairs) {
            var pa = profiles.find(p.a());
            var pb = profiles.find(p.b());
            if (pa.isEmpty() || pb.isEmpty()) {
                if (src.isJson()) continue; // Gavel lists gang variants whose one-GPU profile may be absent
                throw new DataFormatException(src.name(), 0, null, "training pair " + p.a().label() + " + " + p.b().label() + " has a workload without solo profile");
            }
            out.add(new PairObservation(pa.get(), pb.get(), p.gpus(), p.infeasible() ? 0 : p.speedA(), p.infeasible() ? 0 : p.speedB()));
        }
        if (out.isEmpty()) throw new DataFormatException(src.name(), 0, null, "no usable training pairs");
        return out;
    }
}
