package dev.tandem.core.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class WorkloadSignatureTest {
    /** The same components as a plain record: its generated hashCode is what the hand-written one must give. */
    private record Generated(String model, String dataset, int batchSize, boolean amp) {}

    @Test void hashesAsTheGeneratedRecordMethodWouldSoNoMapOrderMoves() {
        for (WorkloadSignature w : new WorkloadSignature[]{new WorkloadSignature("ResNet18", "CIFAR-10", 64, true),
                new WorkloadSignature("BERT", null, 0, false), new WorkloadSignature("GPT", "wiki", 16, false)}) {
            assertEquals(new Generated(w.model(), w.dataset(), w.batchSize(), w.amp()).hashCode(), w.hashCode(), w.label());
        }
    }

    @Test void equalByEveryComponent() {
        WorkloadSignature a = new WorkloadSignature("ResNet18", "CIFAR-10", 64, true);
        assertEquals(a, new WorkloadSignature(new String("ResNet18"), "CIFAR-10", 64, true));
        assertNotEquals(a, new WorkloadSignature("ResNet50", "CIFAR-10", 64, true));
        assertNotEquals(a, new WorkloadSignature("ResNet18", "ImageNet", 64, true));
        assertNotEquals(a, new WorkloadSignature("ResNet18", "CIFAR-10", 32, true));
        assertNotEquals(a, new WorkloadSignature("ResNet18", "CIFAR-10", 64, false));
        assertNotEquals(a, "ResNet18/CIFAR-10/bs64/amp");
    }
}
