package dev.tandem.core.model;

/**
 * Two workloads sharing GPUs as gangs of {@code gpus} GPUs each, in order ({@code a} the one whose speed is meant
 * first): what is learned about a pair is kept by this key (the online model's observed speeds, the pairs tandem split
 * and never forms again).
 *
 * <p>Looked up at every prediction, by policies that predict thousands of pairs per round: equality and hash are written
 * out (the generated ones of a record go through indirect calls: a tenth of gavel-packed's run on the Philly replay);
 * the hash is the one the record would generate.
 */
public record WorkloadPair(WorkloadSignature a, WorkloadSignature b, int gpus) {
    @Override public int hashCode() { return (a.hashCode() * 31 + b.hashCode()) * 31 + gpus; }

    @Override public boolean equals(Object o) {
        return this == o || (o instanceof WorkloadPair p && gpus == p.gpus && a.equals(p.a) && b.equals(p.b));
    }
}
