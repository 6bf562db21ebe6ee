package dev.tandem.core.model;

/**
 * What a training job runs, as far as its resource behaviour is concerned. Jobs with equal signatures are
 * expected to behave alike, so a profile or an observed pairing of one applies to the others.
 */
public record WorkloadSignature(String model, String dataset, int batchSize, boolean amp) {
    public WorkloadSignature {
        if (model == null || model.isBlank()) throw new IllegalArgumentException("workload model name is empty");
        if (dataset == null) dataset = "";
        if (batchSize < 0) throw new IllegalArgumentException("batch size must not be negative, got " + batchSize);
    }

    /** A compact label such as {@code ResNet18/CIFAR-10/bs64/amp}. */
    public String label() {
        return model + "/" + dataset + "/bs" + batchSize + (amp ? "/amp" : "");
    }

    @Override public String toString() { return label(); }

    /**
     * The value the record's generated hashCode gives (so no map's iteration order moves), written out: signatures key
     * the profile look-ups of every scheduling round, where the generated method's indirect calls showed in profiles.
     */
    @Override public int hashCode() {
        return ((model.hashCode() * 31 + dataset.hashCode()) * 31 + batchSize) * 31 + Boolean.hashCode(amp);
    }

    @Override public boolean equals(Object o) {
        return this == o || (o instanceof WorkloadSignature w && batchSize == w.batchSize && amp == w.amp && model.equals(w.model)
                && dataset.equals(w.dataset));
    }
}
