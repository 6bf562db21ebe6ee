package dev.tandem.data;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tandem.core.model.Cluster;
import dev.tandem.core.model.Gpu;
import dev.tandem.core.model.GpuType;
import dev.tandem.core.model.Node;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a cluster from YAML:
 * <pre>
 * nodes:
 *   - name: dgx          # node name prefix
 *     count: 2           # identical nodes (default 1)
 *     gpus: 8
 *     gpu_type: A100
 *     gpu_memory_gb: 80
 *     cpus: 128          # optional
 *     host_memory_gb: 1024  # optional
 * </pre>
 */
public final class ClusterFileReader {
    record NodeGroup(@JsonProperty(value = "name", required = true) String name,
                     @JsonProperty("count") Integer count,
                     @JsonProperty(value = "gpus", required = true) Integer gpus,
                     @JsonProperty(value = "gpu_type", required = true) String gpuType,
                     @JsonProperty(value = "gpu_memory_gb", required = true) Double gpuMemoryGb,
                     @JsonProperty("cpus") Integer cpus,
                     @JsonProperty("host_memory_gb") Double hostMemoryGb) {}

    record ClusterFile(@JsonProperty(value = "nodes", required = true) List<NodeGroup> nodes) {}

    private ClusterFileReader() {}

    private static long lineOfKey(DataSource src, String key, long fallback) {
        try (var r = new java.io.BufferedReader(src.open())) {
            java.util.regex.Pattern p = java.util.regex.Pattern.compile("^\\s*(-\\s*)?" + java.util.regex.Pattern.quote(key) + "\\s*:");
            String l;
            long n = 0;
            while ((l = r.readLine()) != null) {
                n++;
                if (p.matcher(l).find()) return n;
            }
        } catch (IOException e) {
            return fallback;
        }
        return fallback;
    }

    /** Jackson's reference path as a user reads it: {@code nodes[0].gpus}. */
    private static String path(List<com.fasterxml.jackson.databind.JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (var r : refs) {
            if (r.getFieldName() != null) sb.append(sb.isEmpty() ? "" : ".").append(r.getFieldName());
            else if (r.getIndex() >= 0) sb.append('[').append(r.getIndex()).append(']');
        }
        return sb.toString();
    }

    public static Cluster read(DataSource src) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        ClusterFile f;
        try (Reader r = src.open()) {
            f = yaml.readValue(r, ClusterFile.class);
        } catch (JsonProcessingException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            if (e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p && p.currentTokenLocation() != null) {
                line = p.currentTokenLocation().getLineNr(); // where the offending token starts
            }
            String field = e instanceof MismatchedInputException mi && !mi.getPath().isEmpty() ? path(mi.getPath()) : null;
            String msg = e.getOriginalMessage();
            if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException u) {
                msg = "unknown field '" + u.getPropertyName() + "'; known: " + u.getKnownPropertyIds();
                // records are built after their whole mapping is read, so Jackson's location is the mapping's end
                line = lineOfKey(src, u.getPropertyName(), line);
            }
            throw new DataFormatException(src.name(), line, field, msg);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (f == null || f.nodes() == null || f.nodes().isEmpty()) throw new DataFormatException(src.name(), 1, "nodes", "no nodes listed");
        List<Node> nodes = new ArrayList<>();
        int id = 0;
        for (int i = 0; i < f.nodes().size(); i++) {
            NodeGroup g = f.nodes().get(i);
            String field = "nodes[" + i + "]";
            int count = g.count() == null ? 1 : g.count();
            if (count < 1) throw new DataFormatException(src.name(), 0, field + ".count", "must be at least 1");
            if (g.gpus() < 1) throw new DataFormatException(src.name(), 0, field + ".gpus", "must be at least 1");
            if (!(g.gpuMemoryGb() > 0)) throw new DataFormatException(src.name(), 0, field + ".gpu_memory_gb", "must be positive");
            GpuType type = new GpuType(g.gpuType(), Math.round(g.gpuMemoryGb() * 1024));
            for (int c = 0; c < count; c++) {
                String name = count == 1 ? g.name() : g.name() + "-" + c;
                List<Gpu> gpus = new ArrayList<>();
                for (int k = 0; k < g.gpus(); k++) gpus.add(new Gpu(id++, name, k, type));
                int cpus = g.cpus() == null ? 8 * g.gpus() : g.cpus();
                long host = g.hostMemoryGb() == null ? 64L * 1024 * g.gpus() : Math.round(g.hostMemoryGb() * 1024);
                nodes.add(new Node(name, gpus, cpus, host));
            }
        }
        return new Cluster(nodes);
    }
}
