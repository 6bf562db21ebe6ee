package dev.tandem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CliTest {
    @TempDir Path dir;

    record Run(int code, String out, String err) {}

    static synchronized Run tandem(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            CommandLine cl = TandemCommand.commandLine();
            cl.setErr(new PrintWriter(err, true));
            int code = cl.execute(args);
            return new Run(code, buf.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(saved);
        }
    }

    /** Without Slurm's commands a sweep on Slurm fails before it writes anything (it left an empty work directory behind). */
    @Test
    void aSweepOnSlurmWithoutSlurmWritesNothing() {
        Path work = dir.resolve("work");
        dev.tandem.server.exec.ToolPath noSlurm = new dev.tandem.server.exec.ToolPath(dir.resolve("no-tools").toString());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SweepOnSlurm(work, null, noSlurm).run(List.of(), List.of("fifo"), List.of()))
                .isInstanceOf(dev.tandem.server.exec.ExecException.class).hasMessageContaining("sbatch is not on PATH");
        assertThat(work).doesNotExist();
    }

    /** A command that only groups others, given none, says so and fails: a script that left out the command does not pass. */
    @Test
    void aGroupOfCommandsWithoutOneIsAUsageError() {
        for (String[] args : List.of(new String[0], new String[] {"compat"}, new String[] {"users"})) {
            Run r = tandem(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).contains("Missing required subcommand").contains("Usage: tandem");
        }
    }

    /** A value a command cannot take: the error and where the help is, not the whole help page after it (80 lines for submit). */
    @Test
    void aBadOptionGetsItsErrorAndAPointerToTheHelp() {
        Run bad = tandem("simulate", "--jobs", "abc");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("tandem: error: Invalid value for option '--jobs': 'abc' is not an int" + System.lineSeparator()
                + "See 'tandem simulate --help'." + System.lineSeparator());
        Run typo = tandem("simulate", "--no-bond");
        assertThat(typo.err()).contains("Unknown option: '--no-bond'").contains("--no-bound").contains("See 'tandem simulate --help'.")
                .doesNotContain("--tandem-window");
    }

    /**
     * A command list (`tandem --help`, `tandem users --help`) shows each command's first description line: it must be a
     * whole sentence, not the first half of one (simulate, sweep, calibrate and compat matrix showed lines ending in a
     * comma or mid-phrase).
     */
    @Test
    void everyCommandsSummaryIsAWholeSentence() {
        java.util.ArrayDeque<CommandLine> todo = new java.util.ArrayDeque<>(TandemCommand.commandLine().getSubcommands().values());
        int seen = 0;
        while (!todo.isEmpty()) {
            CommandLine c = todo.poll();
            todo.addAll(c.getSubcommands().values());
            if (c.getCommandName().equals("help")) continue; // picocli's own
            String[] description = c.getCommandSpec().usageMessage().description();
            assertThat(description).as(c.getCommandSpec().qualifiedName()).isNotEmpty();
            assertThat(description[0]).as(c.getCommandSpec().qualifiedName() + "'s summary").endsWith(".");
            seen++;
        }
        assertThat(seen).isGreaterThan(20);
    }

    /** serve's settings from a config file: a value the option cannot take is refused naming the file and line. */
    @Test
    void aServeSettingThatCannotBeTakenNamesItsFileAndLine() throws Exception {
        Path yaml = Files.writeString(dir.resolve("tandem.yaml"), "executor: simulated\nport: eighty\n");
        Run r = tandem("serve", "--config", yaml.toString(), "--state-dir", dir.resolve("state").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("Invalid value for option '--port': 'eighty' is not an int (from " + yaml + " line 2)");
    }

    @Test
    void simulateWritesTheTableJsonAndReport() throws Exception {
        Path json = dir.resolve("out/r.json"), html = dir.resolve("out/r.html");
        Run r = tandem("simulate", "--jobs", "40", "--sizes", "1", "--policy", "fifo,tandem", "--output-json", json.toString(),
                "--report", html.toString(), "--show-decisions", "3");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("fifo").contains("tandem").contains("lower bound").contains("decisions of tandem");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("results")).hasSize(2);
        assertThat(root.get("results").get(1).get("policy").asText()).isEqualTo("tandem");
        assertThat(root.has("lower_bound_makespan_s")).isTrue();
        // a result file names the tandem that computed it and everything it was configured with
        assertThat(root.get("tandem").get("commit").asText()).isNotBlank();
        assertThat(root.get("tandem").get("version").asText()).isNotBlank();
        JsonNode cfg = root.get("configuration");
        assertThat(cfg.get("workload").get("jobs").asInt()).isEqualTo(40);
        assertThat(cfg.get("workload").get("mix").asText()).isEqualTo("measured");
        assertThat(cfg.get("simulator").get("round_s").asDouble()).isEqualTo(300);
        assertThat(cfg.get("tandem").get("urgencyWeight").asDouble()).isEqualTo(0.25);
        assertThat(cfg.get("tandem").get("objective").asText()).isEqualTo("balanced");
        assertThat(cfg.get("cluster").asText()).contains("8 GPUs");
        assertThat(root.get("results").get(1).get("ftf_max").asDouble()).isPositive();
        // a report asks the simulator for its timeline and co-located stretches
        assertThat(Files.readString(html)).contains("echarts").contains("\"timeline\":[[").contains("\"co_runs\":[[").contains("Finish-time fairness CDF");
    }

    /**
     * How far declared lengths proved off is a result of its own: with each job's length seen through an error of
     * sigma 1 (half the spread of the demo's lengths) the run says when they lost trust; with exact lengths they never do.
     */
    @Test
    void simulateSaysWhenDeclaredLengthsProvedTooFarOff() throws Exception {
        Path noisy = dir.resolve("noisy.json"), exact = dir.resolve("exact.json");
        Run r = tandem("simulate", "--jobs", "60", "--sizes", "1", "--knowledge", "noisy:1", "--policy", "tandem", "--no-bound", "--output-json", noisy.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("declared lengths judged too far off to rank by").containsPattern("from: tandem \\d+\\.\\d h");
        JsonNode result = new ObjectMapper().readTree(noisy.toFile()).get("results").get(0);
        assertThat(result.get("length_error_share").asDouble()).isGreaterThan(1.0 / 3);
        assertThat(result.get("lengths_distrusted_at_s").asDouble()).isPositive();
        Run e = tandem("simulate", "--jobs", "60", "--sizes", "1", "--policy", "tandem", "--no-bound", "--output-json", exact.toString());
        assertThat(e.code()).as(e.err()).isZero();
        assertThat(e.out()).doesNotContain("declared lengths judged");
        JsonNode exactResult = new ObjectMapper().readTree(exact.toFile()).get("results").get(0);
        assertThat(exactResult.get("length_error_share").asDouble()).isZero();
        assertThat(exactResult.get("lengths_distrusted_at_s").isNull()).isTrue();
    }

    @Test
    void anExportedWorkloadReplaysToTheSameJobResults() throws Exception {
        Path jobs = dir.resolve("jobs.csv"), first = dir.resolve("first.csv"), again = dir.resolve("again.csv");
        Run r = tandem("simulate", "--jobs", "60", "--arrival", "poisson:6", "--sizes", "1:0.8,2:0.2", "--cluster", "1x4:RTX3090-24GB", "--policy", "fifo,gandiva,tandem",
                "--no-bound", "--export-workload", jobs.toString(), "--jobs-csv", first.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readAllLines(jobs)).hasSize(61).first().isEqualTo("id,user,submit_s,gpus,model,dataset,batchsize,amp,iterations");
        Run replay = tandem("simulate", "--workload", jobs.toString(), "--cluster", "1x4:RTX3090-24GB", "--policy", "fifo,gandiva,tandem",
                "--no-bound", "--jobs-csv", again.toString());
        assertThat(replay.code()).as(replay.err()).isZero();
        List<String> rows = Files.readAllLines(first);
        assertThat(rows).hasSize(1 + 3 * 60);
        assertThat(Files.readAllLines(again)).isEqualTo(rows);
        List<String> header = List.of(rows.get(0).split(","));
        assertThat(header).endsWith("partners", "fair_s", "ftf");
        int partners = header.indexOf("partners"), ftf = header.indexOf("ftf");
        assertThat(rows.subList(1, rows.size())).allSatisfy(row -> assertThat(Double.parseDouble(row.split(",", -1)[ftf])).isPositive())
                .anyMatch(row -> row.startsWith("tandem,") && !row.split(",", -1)[partners].isEmpty()); // some tandem job had a partner

        Run both = tandem("simulate", "--workload", jobs.toString(), "--trace", jobs.toString(), "--policy", "fifo");
        assertThat(both.code()).isNotZero();
        assertThat(both.err()).contains("either --workload or --trace");
    }

    @Test
    void badInputFailsWithAClearMessageAndNonZeroExit() throws Exception {
        Run unknown = tandem("simulate", "--policy", "fifo,nope", "--jobs", "5");
        assertThat(unknown.code()).isNotZero();
        assertThat(unknown.err()).contains("unknown policy 'nope'");
        Run badRound = tandem("simulate", "--policy", "gavel-packed:soon", "--jobs", "5");
        assertThat(badRound.code()).isNotZero();
        assertThat(badRound.err()).contains("policy 'gavel-packed:soon': the round length 'soon' is not a duration");

        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem\nA,D,32,0,10,50,20,1000\nB,D,32,0,10,50,200,1000\n");
        Run badProfile = tandem("simulate", "--profiles", bad.toString(), "--jobs", "5");
        assertThat(badProfile.code()).isEqualTo(2);
        assertThat(badProfile.err()).contains("bad.csv:3").contains("gmem_util");

        Run missing = tandem("simulate", "--truth", dir.resolve("none.csv").toString(), "--jobs", "5");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("none.csv").contains("file not found");

        Run cluster = tandem("simulate", "--cluster", "eight", "--jobs", "5");
        assertThat(cluster.code()).isEqualTo(2);
        assertThat(cluster.err()).contains("NODESxGPUS:TYPE-MEM");

        Run duration = tandem("simulate", "--duration-max", "soon", "--jobs", "5");
        assertThat(duration.code()).isEqualTo(2);
        assertThat(duration.err()).contains("'soon' is not a duration");

        Run objective = tandem("simulate", "--objective", "fastest", "--jobs", "5");
        assertThat(objective.code()).isEqualTo(2);
        assertThat(objective.err()).contains("objective must be one of makespan, jct, balanced, got 'fastest'");
        Run variant = tandem("simulate", "--policy", "tandem:soon", "--jobs", "5");
        assertThat(variant.code()).isNotZero();
        assertThat(variant.err()).contains("objective must be one of makespan, jct, balanced, got 'soon'");

        Run limitAlone = tandem("simulate", "--max-gpus-per-user", "2", "--jobs", "5");
        assertThat(limitAlone.code()).isEqualTo(2);
        assertThat(limitAlone.err()).contains("--max-gpus-per-user is one of serve's queue rules: give --fair-share with it");
        Run tooWide = tandem("simulate", "--fair-share", "--max-gpus-per-user", "2", "--jobs", "20", "--policy", "fifo");
        assertThat(tooWide.code()).isNotZero();
        assertThat(tooWide.err()).containsPattern("job j\\d+ needs [48] GPUs; each user may hold at most 2 at once");
    }

    @Test
    void fairShareIsPrintedAndRecordedWithTheResults() throws Exception {
        Path json = dir.resolve("fair.json");
        Run r = tandem("simulate", "--jobs", "40", "--sizes", "1", "--policy", "fifo", "--fair-share", "--max-gpus-per-user", "4", "--no-bound",
                "--output-json", json.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("queue: fair-share, at most 4 GPU(s) per user");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("configuration").get("simulator").get("queue_rules").asText()).isEqualTo("fair-share, at most 4 GPU(s) per user");
    }

    @Test
    void gangsStayOnOneNodeWhenAskedAndTheRunSaysSo() throws Exception {
        Path json = dir.resolve("one-node.json");
        Run r = tandem("simulate", "--jobs", "30", "--sizes", "1:0.5,4:0.5", "--cluster", "2x4:RTX3090-24GB", "--gangs-on-one-node", "--policy", "fifo,tandem",
                "--no-bound", "--output-json", json.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("; each job's GPUs on one node");
        assertThat(new ObjectMapper().readTree(json.toFile()).get("configuration").get("gangs_span_nodes").asBoolean(true)).isFalse();
        Run wide = tandem("simulate", "--jobs", "5", "--sizes", "8", "--cluster", "2x4:RTX3090-24GB", "--gangs-on-one-node", "--policy", "fifo", "--no-bound");
        assertThat(wide.code()).isNotZero();
        assertThat(wide.err()).containsPattern("job j\\d+ needs 8 GPUs; a job's GPUs lie on one node here, and the largest node has 4");
    }

    @Test
    void tandemObjectivesCompareInOneRun() throws Exception {
        Path json = dir.resolve("objectives.json");
        Run r = tandem("simulate", "--jobs", "30", "--sizes", "1", "--policy", "fifo,tandem:makespan,tandem:jct,tandem", "--no-bound",
                "--output-json", json.toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
        assertThat(results).hasSize(4);
        assertThat(results.get(1).get("policy").asText()).isEqualTo("tandem:makespan");
        assertThat(results.get(2).get("policy").asText()).isEqualTo("tandem:jct");
        // on this batch, shortest first gives a lower mean completion time than submission order with the longest first
        assertThat(results.get(2).get("avg_jct_s").asDouble()).isLessThan(results.get(1).get("avg_jct_s").asDouble());
        assertThat(r.out()).contains("max_wait_h");
    }

    @Test
    void trainWithoutHoldsModelsOutOfTheOracleButNotTheTruth() throws Exception {
        Path json = dir.resolve("held-out.json");
        Run r = tandem("simulate", "--jobs", "30", "--sizes", "1", "--policy", "tandem", "--no-bound", "--train-without", "ResNet18,VGG",
                "--output-json", json.toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode workload = new ObjectMapper().readTree(json.toFile()).get("workload");
        assertThat(workload.get("train_without").toString()).isEqualTo("[\"ResNet18\",\"VGG\"]");

        Run unknown = tandem("simulate", "--jobs", "5", "--train-without", "ResNet18,Nope");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("--train-without: no model 'Nope'").contains("known: BERT");
        Run all = tandem("simulate", "--jobs", "5", "--train-without", "DCGAN,EfficientNet,LSTM,MobileNetV2,MobileNetV3,PPO,ResNet18,VGG");
        assertThat(all.code()).isEqualTo(2);
        assertThat(all.err()).contains("no training pairs left without models");
    }

    @Test
    void compatPredictAddsColumnsAndKeepsRows() throws Exception {
        Path pairs = dir.resolve("pairs.csv");
        Files.writeString(pairs, "model1,dataset1,gpu_num1,batchsize1,amp1,model2,dataset2,gpu_num2,batchsize2,amp2\n"
                + "ResNet50,ImageNet,1,32,0,PPO,LunarLander,1,32,0\nBERT,SQuAD,1,32,0,BERT,SQuAD,1,32,1\n");
        Path out = dir.resolve("pred.csv");
        Run r = tandem("compat", "predict", "--pairs", pairs.toString(), "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).endsWith("pred_speed1,pred_speed2,pred_fits");
        assertThat(lines.get(1)).startsWith("ResNet50,ImageNet,1,32,0,PPO").endsWith(",1");
        assertThat(lines.get(2)).endsWith(",0"); // two BERTs (20 GB + 16 GB) do not fit in 24 GB

        Files.writeString(pairs, "model1,dataset1,gpu_num1,batchsize1,amp1,model2,dataset2,gpu_num2,batchsize2,amp2\n"
                + "ResNet50,ImageNet,1,32,0,PPO,LunarLander,1,32,0\nPPO,LunarLander,1,32,0,NoSuch,X,1,32,0\n");
        Files.writeString(out, "keep me");
        Run bad = tandem("compat", "predict", "--pairs", pairs.toString(), "--out", out.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("pairs.csv:3: field 'model2': workload NoSuch/X/bs32 has no solo profile in --profiles");
        assertThat(Files.readString(out)).isEqualTo("keep me"); // nothing already there is lost
    }

    @Test
    void compatEvaluateAndMatrixPrintTables() {
        Run e = tandem("compat", "evaluate");
        assertThat(e.code()).isZero();
        assertThat(e.out()).contains("pooled").contains("per-job speed MAE: knn");
        Run m = tandem("compat", "matrix");
        assertThat(m.code()).isZero();
        assertThat(m.out()).contains("BERT").contains("PPO");
    }

    @Test
    void simulateReplaysATraceAndReportsBadRows() throws Exception {
        Path pods = dir.resolve("pods.csv");
        String header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
        StringBuilder rows = new StringBuilder(header);
        for (int i = 0; i < 30; i++) rows.append(String.format("pod-%d,1000,1024,1,1000,,LS,Running,%d,%d,%d%n", i, i * 60, i * 60 + 7200 + 97 * i, i * 60));
        rows.append("pod-cpu,1000,1024,0,0,,LS,Running,10,500,10\n");
        Files.writeString(pods, rows.toString());
        Run ok = tandem("simulate", "--trace", pods.toString(), "--trace-format", "alibaba", "--cluster", "1x4:RTX3090-24GB", "--policy", "fifo,tandem",
                "--output-json", dir.resolve("t.json").toString());
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("30 jobs, trace alibaba");
        JsonNode w = new ObjectMapper().readTree(dir.resolve("t.json").toFile()).get("workload");
        assertThat(w.get("trace_rows_ignored").asInt()).isEqualTo(1);

        Files.writeString(pods, rows + "pod-bad,1000,1024,1,1000,,LS,Running,soon,900,10\n");
        Run bad = tandem("simulate", "--trace", pods.toString(), "--trace-format", "alibaba", "--cluster", "1x4:RTX3090-24GB", "--policy", "fifo");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("pods.csv:33").contains("creation_time");
        Run skip = tandem("simulate", "--trace", pods.toString(), "--trace-format", "alibaba", "--bad-rows", "skip", "--cluster", "1x4:RTX3090-24GB",
                "--policy", "fifo", "--output-json", dir.resolve("s.json").toString());
        assertThat(skip.code()).as(skip.err()).isZero();
        assertThat(new ObjectMapper().readTree(dir.resolve("s.json").toFile()).get("workload").get("trace_rows_skipped_bad").asInt()).isEqualTo(1);
        assertThat(skip.err()).contains("skipped 1 bad trace row(s) (--bad-rows skip), first: ").contains("pods.csv:33");
        assertThat(tandem("simulate", "--trace", pods.toString(), "--trace-format", "slurm").err()).contains("unknown trace format 'slurm'");
        // a row wider than the header (a name with an unquoted comma shifts the fields after it): refused, or skipped
        Files.writeString(pods, rows + "pod-wide,1000,1024,1,1000,,LS,Running,0,900,10,extra\n");
        assertThat(tandem("simulate", "--trace", pods.toString(), "--trace-format", "alibaba", "--cluster", "1x4:RTX3090-24GB", "--policy", "fifo").err())
                .contains("pods.csv:33: the row has 12 fields where the header names 11");
        Run wide = tandem("simulate", "--trace", pods.toString(), "--trace-format", "alibaba", "--bad-rows", "skip", "--cluster", "1x4:RTX3090-24GB",
                "--policy", "fifo");
        assertThat(wide.code()).as(wide.err()).isZero();
        assertThat(wide.err()).contains("skipped 1 bad trace row(s)").contains("pods.csv:33: the row has 12 fields");
    }

    /** An operator's own Slurm history (sacct -P, the documented field list) replayed under every policy. */
    @Test
    void simulateReplaysSlurmAccounting() throws Exception {
        Path history = dir.resolve("sacct.txt");
        StringBuilder rows = new StringBuilder("JobID|JobName|User|Account|Partition|State|Submit|Start|End|ElapsedRaw|AllocTRES|ReqTRES\n");
        for (int i = 0; i < 40; i++) {
            String submit = String.format("2026-11-%02dT%02d:%02d:00", 1 + i / 20, i % 20, (7 * i) % 60);
            rows.append(String.format("%d|train-%d|user%d|lab|gpu|%s|%s|Unknown|Unknown|%d|billing=1,cpu=4,gres/gpu=%d,node=1|%n",
                    1000 + i, i, i % 3, i % 7 == 0 ? "FAILED" : "COMPLETED", submit, 1800 + 600 * (i % 9), 1 << (i % 3)));
        }
        rows.append("1040.batch|batch||lab||COMPLETED|2026-11-02T00:00:00|Unknown|Unknown|60|cpu=4,gres/gpu=1|\n");
        rows.append("1041|pending|user1|lab|gpu|PENDING|2026-11-02T01:00:00|Unknown|Unknown|0||billing=1\n");
        Files.writeString(history, rows.toString());
        Run ok = tandem("simulate", "--trace", history.toString(), "--trace-format", "sacct", "--cluster", "1x8:RTX3090-24GB", "--policy", "fifo,tandem",
                "--no-bound", "--output-json", dir.resolve("sacct.json").toString());
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("40 jobs, trace sacct");
        JsonNode w = new ObjectMapper().readTree(dir.resolve("sacct.json").toFile()).get("workload");
        assertThat(w.get("trace_rows_ignored").asInt()).as("a step and a pending job").isEqualTo(2);

        Files.writeString(history, rows + "1042|x|u|lab|gpu|COMPLETED|yesterday|Unknown|Unknown|60|gres/gpu=1|\n");
        Run bad = tandem("simulate", "--trace", history.toString(), "--trace-format", "sacct", "--cluster", "1x8:RTX3090-24GB", "--policy", "fifo");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("sacct.txt:44").contains("Submit");
    }

    @Test
    void sweepPrintsIntervalsAndWritesItsReport() throws Exception {
        Path html = dir.resolve("sweep.html");
        Run r = tandem("sweep", "--policy", "fifo,tandem", "--loads", "poisson:2,batch", "--seeds", "2", "--jobs", "20", "--sizes", "1",
                "--clusters", "1x4:RTX3090-24GB", "--report", html.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("8 simulations").contains("±");
        assertThat(Files.readString(html)).contains("makespan (h)");
        assertThat(tandem("sweep", "--seeds", "0").err()).contains("--seeds must be at least 1");
        assertThat(tandem("sweep", "--threads", "0").err()).contains("--threads must be at least 1, got 0");
        // a bad load or cluster is refused before any simulation starts (it was refused by the first worker to reach it)
        Run badLoad = tandem("sweep", "--loads", "batch,abc", "--seeds", "1");
        assertThat(badLoad.code()).isNotZero();
        assertThat(badLoad.err()).contains("arrival 'abc' is neither 'batch' nor 'poisson:RATE'");
        assertThat(badLoad.out()).doesNotContain("simulations");
        assertThat(tandem("sweep", "--clusters", "1x8:RTX3090-24GB,8x", "--seeds", "1").err()).contains("cluster spec '8x' is not NODESxGPUS:TYPE-MEM");
    }

    @Test
    void helpListsTheSubcommands() {
        Run h = tandem("--help");
        assertThat(h.code()).isZero();
        assertThat(h.out()).contains("simulate").contains("sweep").contains("compat").contains("policies");
        assertThat(tandem("policies").out()).contains("fifo-packed").contains("gavel-packed").contains("tiresias").contains("gavel-packed:ROUND");
    }

    /** A daemon that cannot start prints one line that says what to do, and exits with 2. */
    @Test
    void serveThatCannotStartPrintsOneLineAndExitsWithTwo() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        Files.setPosixFilePermissions(state, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Run r = tandem("serve", "--state-dir", state.toString(), "--port", "0");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().lines().toList()).containsExactly("tandem: error: state directory " + state
                + " is writable by others (mode rwxrwxrwx), who could rewrite what jobs run; check what is in it, then run: chmod 700 " + state);
        Run badPassword = tandem("serve", "--state-dir", dir.resolve("other").toString(), "--store-password-file", dir.resolve("nope").toString(),
                "--store", "postgresql://tandem@localhost/tandem");
        assertThat(badPassword.code()).isEqualTo(2);
        assertThat(badPassword.err().lines().toList()).containsExactly("tandem: error: --store-password-file " + dir.resolve("nope") + ": no such file");
        // a password in --store is on the command line for everyone to read: said before the daemon's own error
        Run inline = tandem("serve", "--state-dir", state.toString(), "--port", "0", "--store", "postgresql://tandem:s3cret@localhost/tandem");
        assertThat(inline.code()).isEqualTo(2);
        assertThat(inline.err().lines().toList()).hasSize(2).first().isEqualTo("tandem serve: warning: --store holds a password, which every user of this"
                + " machine can read in the process list; give it with --store-password-file FILE or $TANDEM_STORE_PASSWORD instead");
        assertThat(inline.err()).doesNotContain("s3cret");
    }
}
