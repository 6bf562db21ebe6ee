package dev.tandem.server.exec.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPUs other Slurm jobs hold, by node and node-local index, with who holds each, from {@code scontrol show job -d -o}:
 * <ul>
 *   <li>a job's gpu GRES: its details name its nodes and, per node, {@code GRES=gpu[:type]:N(IDX:0-1,3)}. tandem asks
 *       Slurm for no gpu GRES, so every such GPU is another job's. (The node's own {@code GresUsed} does not say which
 *       GPUs in Slurm 22.05: it prints {@code gpu:1} with no index.)</li>
 *   <li>the runs of another tandem daemon scheduling the same nodes: their comment names the GPUs ({@link TandemComment}),
 *       on the node they asked for ({@code ReqNodeList}), from the moment they are submitted, as that daemon counts
 *       them. Without it two daemons put their runs on one GPU, each unaware of the other's.</li>
 * </ul>
 */
final class GpusHeld {
    /** Job states in which a job holds its allocation. */
    private static final Set<String> HOLDING = Set.of("RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "STOPPED");
    private static final Pattern GPU = Pattern.compile("(?:^|,)gpu(?::[^:(,]+)?:\\d+\\(IDX:([^)]*)\\)");
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");
    private static final Pattern HOSTLIST = Pattern.compile("^([^\\[]*)\\[([^\\]]+)](.*)$");

    private GpusHeld() {}

    /**
     * @param ownInstance this daemon's instance ({@link TandemComment#instance}): its own runs are not someone else's
     * @return node -> GPU index -> who holds it
     */
    static Map<String, Map<Integer, String>> parse(String text, String ownInstance) {
        Map<String, Map<Integer, String>> held = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("JobId=")) continue;
            List<Map.Entry<String, String>> pairs = SlurmText.pairs(line);
            Map<String, String> first = SlurmText.fields(pairs);
            String state = SlurmJob.baseState(first.getOrDefault("JobState", ""));
            Optional<TandemComment> tandem = TandemComment.parse(first.get("Comment"));
            if (tandem.isPresent()) {
                TandemComment c = tandem.get();
                // a run submitted is as good as placed for the daemon that submitted it
                if (c.instance().equals(ownInstance) || !(HOLDING.contains(state) || state.equals("PENDING"))) continue;
                String who = "Slurm job " + first.get("JobId") + " of another tandem daemon (" + c.instance() + ")";
                for (String n : hostnames(first.getOrDefault("ReqNodeList", ""))) {
                    for (int g : c.gpus()) held.computeIfAbsent(n, k -> new TreeMap<>()).putIfAbsent(g, who);
                }
                continue;
            }
            if (!HOLDING.contains(state)) continue;
            List<String> nodes = List.of();
            for (Map.Entry<String, String> e : pairs) {
                if (e.getKey().equals("Nodes")) nodes = hostnames(e.getValue());
                else if (e.getKey().equals("GRES")) {
                    List<Integer> gpus = indices(e.getValue());
                    for (String n : nodes) for (int g : gpus) held.computeIfAbsent(n, k -> new TreeMap<>()).putIfAbsent(g, "another Slurm job (gpu GRES)");
                }
            }
        }
        return held;
    }

    /** The GPU indices of a per-node GRES value: {@code gpu:2(IDX:0-1)}; none for {@code IDX:N/A}. */
    static List<Integer> indices(String gres) {
        List<Integer> out = new ArrayList<>();
        Matcher m = GPU.matcher(gres);
        while (m.find()) {
            Matcher r = RANGE.matcher(m.group(1));
            while (r.find()) {
                int from = Integer.parseInt(r.group(1)), to = r.group(2) == null ? from : Integer.parseInt(r.group(2));
                for (int i = from; i <= to; i++) out.add(i);
            }
        }
        return out;
    }

    /** A Slurm hostlist as names: {@code node1}, {@code node[1-2,4]}, {@code a1,b[3-4]}. */
    static List<String> hostnames(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0, start = 0;
        for (int i = 0; i <= list.length(); i++) {
            char c = i < list.length() ? list.charAt(i) : ',';
            if (c == '[') depth++;
            else if (c == ']') depth--;
            else if (c == ',' && depth == 0) {
                expand(list.substring(start, i), out);
                start = i + 1;
            }
        }
        return out;
    }

    private static void expand(String name, List<String> out) {
        if (name.isBlank()) return;
        Matcher m = HOSTLIST.matcher(name);
        if (!m.matches()) {
            out.add(name);
            return;
        }
        for (String part : m.group(2).split(",")) {
            String[] ends = part.split("-");
            int from = Integer.parseInt(ends[0]), to = ends.length > 1 ? Integer.parseInt(ends[1]) : from;
            for (int i = from; i <= to; i++) {
                String digits = String.valueOf(i);
                while (digits.length() < ends[0].length()) digits = "0" + digits; // node[01-10] keeps its zeros
                expand(m.group(1) + digits + m.group(3), out);
            }
        }
    }
}
