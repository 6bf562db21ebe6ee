package dev.tandem.server.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.server.exec.GpuDevice;
import dev.tandem.server.sched.DecisionLog;
import dev.tandem.server.sched.LiveState;
import dev.tandem.server.sched.SchedulerLoop;
import dev.tandem.server.sched.Timeline;
import dev.tandem.server.store.JobRecord;
import dev.tandem.server.store.JobState;
import dev.tandem.server.store.Store;
import dev.tandem.server.store.User;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's view of the daemon for one user, as one JSON document: cluster summary and its series, the GPU
 * grid, the queue with each job's reason (the text {@code tandem show} prints), recent decisions. Everybody sees every
 * GPU and how busy it is; a user sees the names, owners and speeds of its own jobs only (another user's job is
 * "hidden", as {@code GET /gpus} hides its id), its own queued jobs and decisions; an admin sees everything.
 */
final class DashboardJson {
    private final ObjectMapper json;
    private final Store store;
    private final SchedulerLoop loop;
    private final String sharing;

    DashboardJson(ObjectMapper json, Store store, SchedulerLoop loop, String sharing) {
        this.json = json;
        this.store = store;
        this.loop = loop;
        this.sharing = sharing;
    }

    ObjectNode state(User user, LiveState live) {
        Map<Long, JobRecord> jobs = new HashMap<>();
        for (JobRecord r : store.unfinishedJobs()) jobs.put(r.id(), r);
        ObjectNode o = json.createObjectNode();
        o.put("at", live.at());
        o.put("policy", loop.policyName());
        o.put("sharing", sharing);
        ObjectNode me = o.putObject("user");
        me.put("name", user.name());
        me.put("role", user.role().dbName());
        summary(o.putObject("summary"), live, user);
        Timeline.ClusterSeries series = loop.timeline().cluster();
        ObjectNode history = o.putObject("history");
        ArrayNode t = history.putArray("t"), busy = history.putArray("busy"), shared = history.putArray("shared");
        for (int i = 0; i < series.at().size(); i++) {
            t.add(series.at().get(i) / 1000.0);
            busy.add(series.busy().get(i));
            shared.add(series.shared().get(i));
        }
        gpus(o.putArray("gpus"), live, jobs, user);
        queue(o.putArray("queue"), live, jobs, user);
        decisions(o.putArray("decisions"), jobs, user);
        return o;
    }

    private void summary(ObjectNode s, LiveState live, User user) {
        Map<JobState, Long> counts = store.countByState();
        int busy = 0, shared = 0;
        for (LiveState.GpuLive g : live.gpus()) {
            if (!g.jobs().isEmpty()) busy++;
            if (g.jobs().size() > 1) shared++;
        }
        s.put("gpus", live.gpus().size());
        s.put("busy", busy);
        s.put("shared", shared);
        s.put("queued", counts.get(JobState.PENDING) + counts.get(JobState.SUSPENDED));
        s.put("running", counts.get(JobState.PROFILING) + counts.get(JobState.RUNNING) + counts.get(JobState.PAIRED));
        s.put("succeeded", counts.get(JobState.SUCCEEDED));
        s.put("failed", counts.get(JobState.FAILED));
        JobJson.putNullable(s, "mean_wait_s", store.meanWaitSeconds());
        JobJson.putNullable(s, "sharing_gain", loop.timeline().sharingGain());
    }

    private void gpus(ArrayNode out, LiveState live, Map<Long, JobRecord> jobs, User user) {
        for (LiveState.GpuLive g : live.gpus()) {
            GpuDevice d = g.device();
            ObjectNode o = out.addObject();
            o.put("index", d.index());
            o.put("node", d.node());
            o.put("name", d.name());
            o.put("memory_total_mib", d.memoryMiB());
            JobJson.putNullable(o, "memory_used_mib", g.latest() == null ? null : g.latest().memoryUsedMiB());
            JobJson.putNullable(o, "utilization", g.latest() == null ? null : g.latest().utilGpu());
            o.put("unavailable", g.unavailable()); // another daemon's, or busy with processes that are not tandem's
            JobJson.putHeld(o, g.heldFor(), id -> jobs.containsKey(id) && visible(user, jobs.get(id)));
            ArrayNode util = o.putArray("utilization_history");
            for (double u : loop.timeline().utilisation(g.clusterId())) {
                if (Double.isNaN(u)) util.addNull();
                else util.add(u);
            }
            ArrayNode tenants = o.putArray("jobs");
            for (long id : g.jobs()) {
                JobRecord r = jobs.get(id);
                ObjectNode j = tenants.addObject();
                if (r == null || !visible(user, r)) {
                    j.put("hidden", true);
                    continue;
                }
                LiveState.JobLive l = live.job(id);
                j.put("id", id);
                j.put("name", r.name());
                j.put("owner", r.owner());
                j.put("state", r.state().dbName());
                JobJson.putNullable(j, "predicted_speed", l == null ? null : l.predictedSpeed());
                JobJson.putNullable(j, "observed_speed", l == null ? null : l.observedSpeed());
            }
        }
    }

    private void queue(ArrayNode out, LiveState live, Map<Long, JobRecord> jobs, User user) {
        List<LiveState.JobLive> waiting = live.waiting().inOrder();
        for (LiveState.JobLive l : waiting) {
            JobRecord r = jobs.get(l.jobId());
            if (r == null || !visible(user, r) || !JobState.QUEUED.contains(r.state())) continue;
            ObjectNode o = out.addObject();
            o.put("id", r.id());
            o.put("name", r.name());
            o.put("owner", r.owner());
            o.put("gpus", r.gpus());
            o.put("priority", r.controls().priority());
            o.put("position", l.queuePosition());
            o.put("waited_s", Math.max(0, live.at() - r.queuedAt()) / 1000.0);
            o.put("reason", l.reason());
        }
    }

    private void decisions(ArrayNode out, Map<Long, JobRecord> jobs, User user) {
        for (DecisionLog.Entry e : loop.decisions().recent(user.admin() ? 50 : 200)) {
            if (!user.admin()) {
                String owner = e.owner();
                if (owner == null) { // rare: looked up once per entry shown
                    JobRecord r = jobs.containsKey(e.jobId()) ? jobs.get(e.jobId()) : store.job(e.jobId()).orElse(null);
                    owner = r == null ? null : r.owner();
                }
                if (!user.name().equals(owner)) continue;
            }
            ObjectNode o = out.addObject();
            o.put("at", JobJson.time(e.at()));
            o.put("job", e.jobId());
            o.put("kind", e.kind());
            o.put("text", e.text());
            if (out.size() == 50) break;
        }
    }

    private static boolean visible(User user, JobRecord r) { return user.admin() || r.owner().equals(user.name()); }
}
