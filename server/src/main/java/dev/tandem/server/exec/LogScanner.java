package dev.tandem.server.exec;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows one run's output file for what the scheduler reads from it: progress lines ({@code tandem:progress iter=N}),
 * CUDA out-of-memory messages (PyTorch, the CUDA driver and runtime APIs) and Slurm's step daemon saying it killed the
 * job for going over its memory.
 */
public final class LogScanner {
    private static final Pattern PROGRESS = Pattern.compile("^\\s*tandem:progress\\s+iter=(\\d+)\\b");
    private static final List<String> OOM_MARKERS = List.of("CUDA out of memory", "CUDA_ERROR_OUT_OF_MEMORY", "CUDA error: out of memory",
            "cudaErrorMemoryAllocation");
    /**
     * What slurmstepd writes into a job's output when it kills the job for its host memory: over {@code --mem} by
     * accounting ({@code JobAcctGatherParams=OverMemoryKill}: "error: Exceeded job memory limit", seen with Slurm 22.05),
     * or by a cgroup's out-of-memory killer ("error: Detected 1 oom-kill event(s)").
     */
    private static final List<String> SLURM_MEMORY_KILL_MARKERS = List.of("Exceeded job memory limit", "oom-kill event");
    private static final int MAX_READ = 4 << 20;
    private static final int MAX_LINE = 64 << 10;

    private final Path file;
    private long offset;
    private final StringBuilder partial = new StringBuilder();
    private boolean oomSeen;
    private boolean slurmMemoryKillSeen;

    public LogScanner(Path file, long offset) {
        this.file = file;
        this.offset = offset;
    }

    /** Reads what was appended since the last call; returns the iterations of the progress lines in it. */
    public List<Long> scan() {
        List<Long> progress = new ArrayList<>();
        try {
            if (!Files.exists(file)) return progress;
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long len = f.length();
                if (len <= offset) return progress;
                byte[] buf = new byte[(int) Math.min(MAX_READ, len - offset)];
                f.seek(offset);
                f.readFully(buf);
                offset += buf.length;
                // output is read as UTF-8 only to find ASCII markers, so a character split across reads does no harm
                partial.append(new String(buf, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            return progress;
        }
        int start = 0;
        for (int nl; (nl = partial.indexOf("\n", start)) >= 0; start = nl + 1) line(partial.substring(start, nl), progress);
        partial.delete(0, start);
        if (partial.length() > MAX_LINE) { // a huge line without newline (a progress bar): judge it and drop it
            line(partial.toString(), progress);
            partial.setLength(0);
        }
        return progress;
    }

    private void line(String line, List<Long> progress) {
        Matcher m = PROGRESS.matcher(line);
        if (m.find()) {
            try {
                progress.add(Long.parseLong(m.group(1)));
            } catch (NumberFormatException ignored) {
                // an iteration count beyond long is not progress we can use
            }
            return;
        }
        if (!oomSeen) for (String marker : OOM_MARKERS) if (line.contains(marker)) oomSeen = true;
        if (!slurmMemoryKillSeen && line.startsWith("slurmstepd")) {
            for (String marker : SLURM_MEMORY_KILL_MARKERS) if (line.contains(marker)) slurmMemoryKillSeen = true;
        }
    }

    /** Drains what is left, including a last line without newline (the process has ended). */
    public List<Long> finish() {
        List<Long> progress = scan();
        if (!partial.isEmpty()) {
            line(partial.toString(), progress);
            partial.setLength(0);
        }
        return progress;
    }

    public boolean oomSeen() { return oomSeen; }

    /** Whether Slurm's step daemon said it killed the job for going over its host memory. */
    public boolean slurmMemoryKillSeen() { return slurmMemoryKillSeen; }
}
