package dev.tandem.server.calibrate;

import dev.tandem.core.model.WorkloadSignature;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One job of a workload suite to calibrate: a model of {@code workloads/train.py} with a batch size and precision.
 * Its signature (model as the suite names it, data set "synthetic") is what a user names at {@code tandem submit
 * --model resnet18 --dataset synthetic --batch-size 64} to get the profile measured here.
 */
public record SuiteWorkload(String model, int batchSize, boolean amp) {
    public static final String DATASET = "synthetic";

    public SuiteWorkload {
        if (model == null || !model.matches("[a-z0-9_]{1,64}")) throw new IllegalArgumentException("workload model '" + model + "': lower-case letters, digits, _");
        if (batchSize < 1) throw new IllegalArgumentException("workload " + model + ": batch size must be at least 1, got " + batchSize);
    }

    /** Parses "resnet18:64", "dcgan:32:amp" or "lstm" (batch size 32), comma-separated. */
    public static List<SuiteWorkload> parseList(String text) {
        List<SuiteWorkload> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String[] f = part.strip().split(":");
            if (f.length == 0 || f[0].isBlank() || f.length > 3) throw new IllegalArgumentException("'" + part.strip() + "' is not MODEL[:BATCH[:amp]]");
            int batch;
            try {
                batch = f.length > 1 ? Integer.parseInt(f[1]) : 32;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + part.strip() + "': the batch size must be a whole number");
            }
            if (f.length == 3 && !f[2].equals("amp")) throw new IllegalArgumentException("'" + part.strip() + "': the third field can only be amp");
            SuiteWorkload w = new SuiteWorkload(f[0].toLowerCase(Locale.ROOT), batch, f.length == 3);
            if (out.contains(w)) throw new IllegalArgumentException("workload " + w.label() + " is listed twice");
            out.add(w);
        }
        return out;
    }

    public WorkloadSignature signature() { return new WorkloadSignature(model, DATASET, batchSize, amp); }

    public String label() { return model + ":" + batchSize + (amp ? ":amp" : ""); }

    /** The command that trains it for {@code seconds} (on the GPU CUDA_VISIBLE_DEVICES names, else the CPU). */
    public List<String> argv(List<String> suiteCommand, double seconds) {
        List<String> argv = new ArrayList<>(suiteCommand);
        argv.addAll(List.of("--model", model, "--batch-size", String.valueOf(batchSize), "--iterations", "1000000000",
                "--seconds", String.format(Locale.ROOT, "%.1f", seconds)));
        if (amp) argv.add("--amp");
        return argv;
    }
}
