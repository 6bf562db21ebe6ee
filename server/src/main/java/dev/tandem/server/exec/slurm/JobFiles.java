package dev.tandem.server.exec.slurm;

import dev.tandem.server.exec.JobCannotRun;
import dev.tandem.server.exec.Launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The files the batch script reads: argv and environment, NUL-separated (the one byte no argv element can hold). */
final class JobFiles {
    private JobFiles() {}

    static byte[] nulSeparated(List<String> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String s : items) {
            if (s.indexOf('\0') >= 0) throw new JobCannotRun("an argument or environment value contains a NUL byte, which no process can receive");
            out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    /** The user's environment plus what the local executor sets; CUDA_VISIBLE_DEVICES holds the node-local indices. */
    static List<String> env(Launch l, List<SlurmExecutor.SlurmGpu> placed) {
        Map<String, String> env = new LinkedHashMap<>(l.env());
        env.put("CUDA_VISIBLE_DEVICES", placed.stream().map(g -> String.valueOf(g.local())).collect(Collectors.joining(",")));
        env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        env.put("TANDEM_JOB_ID", String.valueOf(l.jobId()));
        env.put("TANDEM_ATTEMPT", String.valueOf(l.attempt()));
        env.put("TANDEM_GPUS", l.gpus().stream().map(g -> String.valueOf(g.index())).collect(Collectors.joining(",")));
        List<String> out = new ArrayList<>();
        env.forEach((k, v) -> out.add(k + "=" + v));
        return out;
    }

    /**
     * The file the batch script leaves, with why, when it could not enter the job's working directory on the node
     * ({@code nodir-ATTEMPT}): Slurm itself would have run the job in /tmp, saying so only in its output.
     */
    static final String NO_WORKDIR = "nodir-";

    /** A small text file the batch script wrote, stripped; null when it is not there or cannot be read. */
    static String readText(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f).strip() : null;
        } catch (IOException e) {
            return null;
        }
    }

    static Integer readExit(Path f) {
        String code = readText(f);
        try {
            return code == null ? null : Integer.valueOf(code);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
