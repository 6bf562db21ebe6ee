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
}
