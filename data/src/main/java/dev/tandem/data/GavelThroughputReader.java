package dev.tandem.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.JobProfile;
import dev.tandem.core.model.WorkloadSignature;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Gavel's throughput file: {@code {gpu: {"('JOB TYPE', SCALE)": {"null": solo, "('OTHER', SCALE)": [a, b]}}}},
 * throughputs in steps per second; a co-located value {@code [0, 0]} means the pair cannot share (out of memory), and a
 * solo throughput of 0 that the job type does not run at that scale on that GPU (Gavel's K80 column: ResNet-50 with
 * batch size 128 on 2, 4 and 8 GPUs): the scale is left out, with its pairs, so no job of that size is drawn.
 * Job types become signatures (model and batch size from the name; the data set from Gavel's paper); the solo
 * speed of the one-GPU variant becomes the profile's speed. Gavel gives no utilisation or memory, so these
 * profiles have none.
 */
public final class GavelThroughputReader {
    private static final Pattern KEY = Pattern.compile("\\('(.+?)', (\\d+)\\)");
    private static final Pattern BATCH = Pattern.compile("(.+?) \\(batch size (\\d+)\\)");
    private static final Map<String, String> DATASETS = Map.of(
            "ResNet-18", "CIFAR-10", "ResNet-50", "ImageNet", "Transformer", "Multi30k", "LM", "Wikitext-2",
            "Recommendation", "ML-20M", "A3C", "Pong", "CycleGAN", "monet2photo");

    /**
     * Solo profiles of the job types on one GPU type, all measured pairs on it, and each job type's solo
     * throughput (steps/s) at every scale factor Gavel measured.
     */
    public record GavelData(String gpuType, List<JobProfile> profiles, List<MeasuredPair> pairs,
                            Map<WorkloadSignature, Map<Integer, Double>> throughputs) {
        /** The scale factors (GPUs) each job type was measured at. */
        public Map<WorkloadSignature, List<Integer>> scales() {
            Map<WorkloadSignature, List<Integer>> out = new LinkedHashMap<>();
            throughputs.forEach((sig, bySize) -> out.put(sig, List.copyOf(bySize.keySet())));
            return out;
        }

        /**
         * How much faster a gang of {@code gpus} runs this job type than one GPU does (Gavel: ResNet-18 bs64 on V100
         * is 24.1 steps/s on 1 GPU, 95.6 on 4); NaN when Gavel did not measure that scale.
         */
        public double gangSpeedup(WorkloadSignature sig, int gpus) {
            Map<Integer, Double> bySize = throughputs.get(sig);
            if (bySize == null || !bySize.containsKey(1) || !bySize.containsKey(gpus)) return Double.NaN;
            return bySize.get(gpus) / bySize.get(1);
        }
    }

    private GavelThroughputReader() {}

    public static GavelData read(DataSource src, String gpuType) {
        JsonNode root = Json.read(src);
        if (root == null || !root.isObject()) throw new DataFormatException(src.name(), 1, null, "expected a JSON object keyed by GPU type");
        JsonNode gpu = root.get(gpuType);
        if (gpu == null || !gpu.isObject()) {
            List<String> names = new ArrayList<>();
            root.fieldNames().forEachRemaining(names::add);
            throw new DataFormatException(src.name(), 0, gpuType, "no such GPU type; the file has " + names);
        }
        Map<WorkloadSignature, JobProfile> profiles = new LinkedHashMap<>();
        Map<WorkloadSignature, Map<Integer, Double>> throughputs = new LinkedHashMap<>();
        Map<String, Double> solo = new LinkedHashMap<>();
        java.util.Set<String> doesNotRun = new java.util.HashSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = gpu.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode s = e.getValue().get("null");
            if (s != null && s.isNumber() && s.asDouble() == 0) {
                key(src, e.getKey()); // still a job type key
                doesNotRun.add(e.getKey());
                continue;
            }
            if (s == null || !s.isNumber() || !(s.asDouble() > 0)) throw new DataFormatException(src.name(), 0, e.getKey(), "missing or negative solo throughput under \"null\"");
            solo.put(e.getKey(), s.asDouble());
            Key k = key(src, e.getKey());
            throughputs.computeIfAbsent(k.sig, x -> new TreeMap<>()).put(k.scale, s.asDouble());
            if (k.scale == 1) profiles.put(k.sig, JobProfile.basic(k.sig, s.asDouble(), Double.NaN, Double.NaN, Double.NaN));
        }
        List<MeasuredPair> pairs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = gpu.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (doesNotRun.contains(e.getKey())) continue;
            Key a = key(src, e.getKey());
            for (Iterator<Map.Entry<String, JsonNode>> jt = e.getValue().fields(); jt.hasNext(); ) {
                Map.Entry<String, JsonNode> p = jt.next();
                if (p.getKey().equals("null") || doesNotRun.contains(p.getKey())) continue;
                Key b = key(src, p.getKey());
                JsonNode v = p.getValue();
                if (!v.isArray() || v.size() != 2 || !v.get(0).isNumber() || !v.get(1).isNumber()) {
                    throw new DataFormatException(src.name(), 0, e.getKey() + " / " + p.getKey(), "co-located throughput must be a pair [a, b] of numbers");
                }
                Double soloB = solo.get(p.getKey());
                if (soloB == null) throw new DataFormatException(src.name(), 0, p.getKey(), "partner has no solo throughput in this GPU type");
                double ta = v.get(0).asDouble(), tb = v.get(1).asDouble();
                boolean infeasible = ta <= 0 && tb <= 0;
                pairs.add(new MeasuredPair(a.sig, b.sig, a.scale, ta / solo.get(e.getKey()), tb / soloB, Double.NaN, infeasible));
            }
        }
        return new GavelData(gpuType, List.copyOf(profiles.values()), pairs, throughputs);
    }

    private record Key(WorkloadSignature sig, int scale) {}

    private static Key key(DataSource src, String raw) {
        Matcher m = KEY.matcher(raw);
        if (!m.matches()) throw new DataFormatException(src.name(), 0, raw, "job type key is not ('NAME', SCALE)");
        String name = m.group(1);
        int bs = 0;
        Matcher b = BATCH.matcher(name);
        if (b.matches()) {
            name = b.group(1);
            bs = Integer.parseInt(b.group(2));
        }
        return new Key(new WorkloadSignature(name, DATASETS.getOrDefault(name, ""), bs, false), Integer.parseInt(m.group(2)));
    }
}
