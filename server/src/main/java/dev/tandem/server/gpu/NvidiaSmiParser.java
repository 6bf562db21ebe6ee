package dev.tandem.server.gpu;

import dev.tandem.server.exec.GpuDevice;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parses nvidia-smi's {@code --format=csv,noheader,nounits} output: one line per GPU, fields separated by
 * {@code ", "}, unavailable values written as {@code [N/A]} or {@code [Not Supported]}.
 */
public final class NvidiaSmiParser {
    /** The inventory query the executor runs at start. */
    public static final List<String> INVENTORY_ARGS = List.of("--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits");

    /** The sampling query the monitor keeps running, one block of lines every 200 ms. */
    public static final List<String> SAMPLE_ARGS = List.of("--query-gpu=index,utilization.gpu,utilization.memory,memory.used",
            "--format=csv,noheader,nounits", "-lms", "200");

    /** The processes on the GPUs, asked every few seconds: a GPU used by a process that is not tandem's is left alone. */
    public static final List<String> COMPUTE_APPS_ARGS = List.of("--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
            "--format=csv,noheader,nounits");

    private NvidiaSmiParser() {}

    /** Lines of {@code index, uuid, name, memory.total} of the GPUs in {@code node}; a GPU name may itself contain commas. */
    public static List<GpuDevice> parseInventory(List<String> lines, String node) {
        List<GpuDevice> out = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty()) continue;
            String[] f = line.split(",");
            if (f.length < 4) throw new IllegalArgumentException("nvidia-smi inventory line has " + f.length + " fields, expected 4: '" + line + "'");
            int index = Integer.parseInt(f[0].strip());
            String uuid = f[1].strip();
            StringBuilder name = new StringBuilder(f[2].strip());
            for (int i = 3; i < f.length - 1; i++) name.append(",").append(f[i]);
            double mem = number(f[f.length - 1]);
            if (Double.isNaN(mem) || mem <= 0) throw new IllegalArgumentException("nvidia-smi reports no memory size for GPU " + index + ": '" + line + "'");
            out.add(new GpuDevice(index, node, uuid, name.toString().strip(), (long) mem));
        }
        return out;
    }

    /**
     * Lines of {@code gpu_uuid, pid, process_name, used_memory} (none when no process uses a GPU); a process name may
     * itself contain commas.
     *
     * @throws IllegalArgumentException naming the line and field of a line that is not such a line
     */
    public static List<ComputeApp> parseComputeApps(List<String> lines) {
        List<ComputeApp> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            String where = "nvidia-smi --query-compute-apps line " + (i + 1);
            String[] f = line.split(",");
            if (f.length < 4) throw new IllegalArgumentException(where + ": " + f.length + " fields, expected gpu_uuid, pid, process_name, used_memory: '" + line + "'");
            String uuid = f[0].strip();
            if (uuid.isEmpty()) throw new IllegalArgumentException(where + ": empty gpu_uuid: '" + line + "'");
            long pid;
            try {
                pid = Long.parseLong(f[1].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": pid '" + f[1].strip() + "' is not a number");
            }
            StringBuilder name = new StringBuilder(f[2].strip());
            for (int k = 3; k < f.length - 1; k++) name.append(",").append(f[k]);
            double used;
            try {
                used = number(f[f.length - 1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": used_memory '" + f[f.length - 1].strip() + "' is not a number");
            }
            out.add(new ComputeApp(uuid, pid, name.toString().strip(), Double.isNaN(used) ? -1 : (long) used));
        }
        return out;
    }

    /** One line of {@code index, utilization.gpu, utilization.memory, memory.used}; empty if it is not such a line. */
    public static Optional<GpuSample> parseSample(String raw, long at) {
        String[] f = raw.strip().split(",");
        if (f.length != 4) return Optional.empty();
        try {
            int index = Integer.parseInt(f[0].strip());
            return Optional.of(GpuSample.fromSmi(index, at, number(f[1]), number(f[2]), number(f[3])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    static double number(String field) {
        String s = field.strip();
        if (s.startsWith("[") || s.equalsIgnoreCase("N/A")) return Double.NaN;
        return Double.parseDouble(s);
    }
}
