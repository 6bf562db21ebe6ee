package dev.tandem.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.core.model.DurationText;
import dev.tandem.core.model.WorkloadSignature;
import dev.tandem.server.store.JobControls;
import dev.tandem.server.store.NewJob;
import dev.tandem.server.store.RunLimits;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Validates a submission ({@code POST /api/v1/jobs}) field by field; every refusal names its field. The command
 * is an argv list, run without a shell. Without a {@code signature}, jobs with the same argv count as the same
 * workload (and share a profile).
 */
public final class JobRequest {
    private static final Set<String> FIELDS = Set.of("name", "argv", "env", "workdir", "gpus", "memory_mib", "iterations", "signature", "time_limit",
            "priority", "after", "hold", "array", "limits", "output");
    private static final Set<String> LIMIT_FIELDS = Set.of("host_memory_mib", "processes");
    /** 1 TiB of host memory, 4,194,304 processes (Linux's pid_max at most): beyond, a limit is no limit. */
    private static final long MAX_HOST_MEMORY_MIB = 1L << 20;
    private static final int MAX_PROCESSES = 4_194_304;
    /** Priorities run from -1000 to 1000; users may lower their own jobs' priority, an admin may raise it. */
    public static final int MAX_PRIORITY = 1000;
    /** The most members one array may have. */
    public static final int MAX_ARRAY = 10_000;
    private static final Pattern ARRAY_PART = Pattern.compile("(\\d{1,9})(?:-(\\d{1,9})(?::(\\d{1,9}))?)?");
    private static final Set<String> SIGNATURE_FIELDS = Set.of("model", "dataset", "batch_size", "amp");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    /** Signature names end up in labels like {@code model/dataset/bs64} and pair keys {@code a|b}: no '/' or '|'. */
    private static final Pattern SIGNATURE_NAME = Pattern.compile("[A-Za-z0-9._+:=-]{1,128}");
    private static final int MAX_ARGS = 1024;
    private static final int MAX_ARG = 4096;
    private static final int MAX_ENV = 256;
    private static final int MAX_ENV_VALUE = 8192;

    private final int widestJob;
    private final long maxMemoryMiB;
    private final String defaultWorkdir;

    /** @param widestJob the most GPUs one job can get: the largest node's, as a job runs on one node */
    public JobRequest(int widestJob, long maxMemoryMiB, String defaultWorkdir) {
        this.widestJob = widestJob;
        this.maxMemoryMiB = maxMemoryMiB;
        this.defaultWorkdir = defaultWorkdir;
    }

    /**
     * A validated submission: the job, and for an array ({@code "array": "0-9"}) the index of each member, else empty.
     */
    public record Submission(NewJob job, List<Integer> arrayIndices) {}

    /**
     * @param cannotEnter why the job's runs could not enter a directory it names (its working directory, its output's
     *                    directory), or empty: for a user whose jobs run as another Unix account, asked with that
     *                    account's rights, so that the answer tells nothing about directories it could not see
     */
    public Submission parse(JsonNode body, Function<Path, Optional<String>> cannotEnter) {
        if (body == null || !body.isObject()) throw new ApiError(400, null, "the body must be a JSON object");
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) throw ApiError.badField(f, "unknown field (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
        }
        List<String> argv = argv(body.get("argv"));
        String name = body.has("name") ? text(body.get("name"), "name", 128) : defaultName(argv);
        if (name.isBlank()) throw ApiError.badField("name", "must not be blank");
        if (name.chars().anyMatch(Character::isISOControl)) throw ApiError.badField("name", "must not contain control characters");
        Map<String, String> env = env(body.get("env"));
        String workdir = body.has("workdir") ? text(body.get("workdir"), "workdir", 4096) : defaultWorkdir;
        if (!workdir.startsWith("/")) throw ApiError.badField("workdir", "must be an absolute path");
        cannotEnter.apply(Path.of(workdir)).ifPresent(why -> { throw ApiError.badField("workdir", why); });
        long gpus = integer(body.get("gpus"), "gpus", 1, Long.MIN_VALUE, Long.MAX_VALUE);
        if (gpus < 1) throw ApiError.badField("gpus", "must be at least 1, got " + gpus);
        if (gpus > widestJob) throw ApiError.badField("gpus", "a job runs on one node, and the largest node has " + widestJob + " GPU(s); got " + gpus);
        long memory = integer(body.get("memory_mib"), "memory_mib", 0, 0, maxMemoryMiB);
        Long iterations = body.has("iterations") ? integer(body.get("iterations"), "iterations", 1, 1, 1_000_000_000_000_000L) : null;
        WorkloadSignature sig = body.has("signature") ? signature(body.get("signature")) : defaultSignature(argv);
        Long timeLimit = body.has("time_limit") && !body.get("time_limit").isNull() ? timeLimit(body.get("time_limit")) : null;
        int priority = (int) integer(body.get("priority"), "priority", 0, -MAX_PRIORITY, MAX_PRIORITY);
        List<Long> after = after(body.get("after"));
        JsonNode hold = body.get("hold");
        if (hold != null && !hold.isNull() && !hold.isBoolean()) throw ApiError.badField("hold", "must be true or false");
        List<Integer> array = body.has("array") && !body.get("array").isNull() ? arrayIndices(body.get("array")) : List.of();
        JobControls controls = new JobControls(priority, after, hold != null && hold.asBoolean(false), null, null);
        RunLimits limits = body.has("limits") && !body.get("limits").isNull() ? limits(body.get("limits")) : RunLimits.NONE;
        String output = body.has("output") && !body.get("output").isNull() ? output(text(body.get("output"), "output", 4096), workdir, cannotEnter) : null;
        return new Submission(new NewJob(name, argv, env, workdir, (int) gpus, memory, iterations, sig, timeLimit, controls, limits, output), array);
    }

    /**
     * Where each run's output is copied for the owner: absolute, or relative to the working directory ({@code %j} the job
     * id, {@code %a} its array index); its directory must be one the runs can enter ({@code cannotEnter}). Whether the
     * owner may write there is found out with the owner's rights when a run ends.
     */
    private static String output(String path, String workdir, Function<Path, Optional<String>> cannotEnter) {
        if (path.isBlank()) throw ApiError.badField("output", "must not be blank");
        if (path.chars().anyMatch(Character::isISOControl)) throw ApiError.badField("output", "must not contain control characters");
        Path p = Path.of(workdir).resolve(path).normalize();
        if (p.getFileName() == null || path.endsWith("/")) throw ApiError.badField("output", "must name a file, got '" + path + "'");
        cannotEnter.apply(p.getParent()).ifPresent(why -> { throw ApiError.badField("output", why); });
        return p.toString();
    }

    /** {@code {"host_memory_mib": 8192, "processes": 512}}, either or both. */
    private static RunLimits limits(JsonNode n) {
        if (!n.isObject()) throw ApiError.badField("limits", "must be an object such as {\"host_memory_mib\": 8192, \"processes\": 512}");
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!LIMIT_FIELDS.contains(f)) throw ApiError.badField("limits." + f, "unknown limit (known: host_memory_mib, processes)");
        }
        Long memory = n.has("host_memory_mib") && !n.get("host_memory_mib").isNull()
                ? integer(n.get("host_memory_mib"), "limits.host_memory_mib", 0, 1, MAX_HOST_MEMORY_MIB) : null;
        Integer processes = n.has("processes") && !n.get("processes").isNull()
                ? (int) integer(n.get("processes"), "limits.processes", 0, 1, MAX_PROCESSES) : null;
        return new RunLimits(memory, processes);
    }

    /** Ids of jobs that must succeed first: a list of job ids, or a string "12,13" as the CLI takes it. */
    private static List<Long> after(JsonNode n) {
        if (n == null || n.isNull()) return List.of();
        List<Long> out = new ArrayList<>();
        if (n.isTextual()) {
            for (String part : n.asText().split(",", -1)) {
                try {
                    long id = Long.parseLong(part.strip());
                    if (id < 1) throw new NumberFormatException();
                    out.add(id);
                } catch (NumberFormatException e) {
                    throw ApiError.badField("after", "job ids are whole numbers separated by commas, got '" + part.strip() + "'");
                }
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                JsonNode e = n.get(i);
                if (!e.isIntegralNumber() || !e.canConvertToLong() || e.asLong() < 1) throw ApiError.badField("after[" + i + "]", "must be a job id");
                out.add(e.asLong());
            }
        } else {
            throw ApiError.badField("after", "must be a list of job ids");
        }
        if (out.size() > 100) throw ApiError.badField("after", "at most 100 jobs");
        return out.stream().distinct().toList();
    }

    /**
     * The indices of a job array, as Slurm's {@code --array} writes them: "0-9", "1,3,5", "0-20:5", or a mix
     * ("0-3,10"); each index once, at most {@link #MAX_ARRAY}.
     */
    static List<Integer> arrayIndices(JsonNode n) {
        if (!n.isTextual()) throw ApiError.badField("array", "must be a string such as \"0-9\", \"1,3,5\" or \"0-20:5\"");
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (String part : n.asText().split(",", -1)) {
            var m = ARRAY_PART.matcher(part.strip());
            if (!m.matches()) throw ApiError.badField("array", "'" + part.strip() + "' is not an index, a range A-B or a range with a step A-B:S");
            long from = Long.parseLong(m.group(1)), to = m.group(2) == null ? from : Long.parseLong(m.group(2));
            long step = m.group(3) == null ? 1 : Long.parseLong(m.group(3));
            if (to < from) throw ApiError.badField("array", "range " + part.strip() + " ends before it starts");
            if (step < 1) throw ApiError.badField("array", "the step of " + part.strip() + " must be at least 1");
            if ((to - from) / step + 1 + out.size() > MAX_ARRAY) throw ApiError.badField("array", "at most " + MAX_ARRAY + " jobs in one array");
            for (long i = from; i <= to; i += step) out.add((int) i);
        }
        return List.copyOf(out);
    }

    private static List<String> argv(JsonNode n) {
        if (n == null || n.isNull()) throw ApiError.badField("argv", "required: the command as a list of strings, e.g. [\"python\", \"train.py\"]");
        if (!n.isArray()) throw ApiError.badField("argv", "must be a list of strings (commands are never passed to a shell)");
        if (n.isEmpty()) throw ApiError.badField("argv", "must not be empty");
        if (n.size() > MAX_ARGS) throw ApiError.badField("argv", "at most " + MAX_ARGS + " arguments");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) out.add(text(n.get(i), "argv[" + i + "]", MAX_ARG));
        if (out.getFirst().isBlank()) throw ApiError.badField("argv[0]", "the program must not be blank");
        return out;
    }

    private static Map<String, String> env(JsonNode n) {
        Map<String, String> out = new LinkedHashMap<>();
        if (n == null || n.isNull()) return out;
        if (!n.isObject()) throw ApiError.badField("env", "must be an object of NAME: value strings");
        if (n.size() > MAX_ENV) throw ApiError.badField("env", "at most " + MAX_ENV + " variables");
        for (var it = n.fields(); it.hasNext(); ) {
            var e = it.next();
            String k = e.getKey();
            if (!ENV_NAME.matcher(k).matches()) {
                throw ApiError.badField("env." + k, "'" + k + "' is not a valid variable name (letters, digits and _, not first a digit, at most 128)");
            }
            if (k.startsWith("TANDEM_") || k.startsWith("CUDA_MPS_") || k.equals("CUDA_VISIBLE_DEVICES") || k.equals("CUDA_DEVICE_ORDER")) {
                throw ApiError.badField("env." + k, "set by tandem for each run");
            }
            out.put(k, text(e.getValue(), "env." + k, MAX_ENV_VALUE));
        }
        return out;
    }

    private static WorkloadSignature signature(JsonNode n) {
        if (!n.isObject()) throw ApiError.badField("signature", "must be an object {model, dataset, batch_size, amp}");
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!SIGNATURE_FIELDS.contains(f)) throw ApiError.badField("signature." + f, "unknown field (known: amp, batch_size, dataset, model)");
        }
        String model = text(n.get("model"), "signature.model", 128);
        if (!SIGNATURE_NAME.matcher(model).matches()) throw ApiError.badField("signature.model", "letters, digits and . _ + : = - only");
        String dataset = n.has("dataset") ? text(n.get("dataset"), "signature.dataset", 128) : "";
        if (!dataset.isEmpty() && !SIGNATURE_NAME.matcher(dataset).matches()) throw ApiError.badField("signature.dataset", "letters, digits and . _ + : = - only");
        int batch = (int) integer(n.get("batch_size"), "signature.batch_size", 0, 0, 1_000_000);
        JsonNode amp = n.get("amp");
        if (amp != null && !amp.isNull() && !amp.isBoolean()) throw ApiError.badField("signature.amp", "must be true or false");
        return new WorkloadSignature(model, dataset, batch, amp != null && amp.asBoolean(false));
    }

    /**
     * Options whose values set how long a run trains, its seed, or where it writes and what it is called, not what it
     * computes on the GPU: command lines that differ only in them are one workload ({@code --epochs 3} and
     * {@code --epochs 5} share a profile). Compared without dashes, case and the {@code -}/{@code _} difference.
     */
    static final Set<String> INCIDENTAL_OPTIONS = Set.of("epochs", "num-epochs", "n-epochs", "max-epochs", "iterations", "iters",
            "num-iterations", "max-iters", "steps", "max-steps", "train-steps", "num-steps", "total-steps", "seed", "output", "output-dir",
            "out", "out-dir", "save", "save-dir", "save-path", "log-dir", "logdir", "log-file", "checkpoint", "checkpoint-dir", "ckpt",
            "ckpt-dir", "resume", "run-name", "name", "exp-name", "experiment-name", "wandb-name");

    /**
     * Jobs with the same command line, apart from {@link #INCIDENTAL_OPTIONS}, are the same workload until told
     * otherwise (with a signature).
     */
    static WorkloadSignature defaultSignature(List<String> argv) {
        return new WorkloadSignature("cmd-" + Tokens.hash(String.join("\u0000", workloadArgs(argv))).substring(0, 12), "", 0, false);
    }

    /** The command line without the incidental options and their values ({@code --epochs 3}, {@code --epochs=3}). */
    static List<String> workloadArgs(List<String> argv) {
        List<String> out = new ArrayList<>(argv.size());
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals("--")) { // everything after is positional
                out.addAll(argv.subList(i, argv.size()));
                break;
            }
            if (a.startsWith("-") && a.length() > 1 && !Character.isDigit(a.charAt(1))) {
                int eq = a.indexOf('=');
                String key = (eq < 0 ? a : a.substring(0, eq)).replaceFirst("^-+", "").replace('_', '-').toLowerCase(java.util.Locale.ROOT);
                if (INCIDENTAL_OPTIONS.contains(key)) {
                    if (eq < 0 && i + 1 < argv.size() && !isOption(argv.get(i + 1))) i++; // its value
                    continue;
                }
            }
            out.add(a);
        }
        return out;
    }

    private static boolean isOption(String a) { return a.startsWith("-") && a.length() > 1 && !Character.isDigit(a.charAt(1)); }

    private static String defaultName(List<String> argv) {
        String prog = Path.of(argv.getFirst()).getFileName() == null ? argv.getFirst() : Path.of(argv.getFirst()).getFileName().toString();
        return prog.length() > 128 ? prog.substring(0, 128) : prog;
    }

    private static String text(JsonNode n, String field, int max) {
        if (n == null || n.isNull()) throw ApiError.badField(field, "required");
        if (!n.isTextual()) throw ApiError.badField(field, "must be a string");
        String s = n.asText();
        if (s.length() > max) throw ApiError.badField(field, "longer than " + max + " characters");
        if (s.indexOf('\0') >= 0) throw ApiError.badField(field, "must not contain NUL characters");
        return s;
    }

    /** A duration in tandem's syntax ("90s", "2h", "7d"; a bare number is seconds), at least one second. */
    private static long timeLimit(JsonNode n) {
        if (!n.isTextual() && !n.isNumber()) throw ApiError.badField("time_limit", "must be a duration such as \"30m\" or \"2h\"");
        long ms;
        try {
            ms = DurationText.millis(n.asText());
        } catch (IllegalArgumentException e) {
            throw ApiError.badField("time_limit", e.getMessage());
        }
        if (ms < 1000) throw ApiError.badField("time_limit", "must be at least 1s, got " + n.asText());
        return ms;
    }

    private static long integer(JsonNode n, String field, long dflt, long min, long max) {
        if (n == null || n.isNull()) return dflt;
        if (!n.isIntegralNumber() || !n.canConvertToLong()) throw ApiError.badField(field, "must be a whole number");
        long v = n.asLong();
        if (v < min || v > max) throw ApiError.badField(field, "must be within " + min + ".." + max + ", got " + v);
        return v;
    }
}
