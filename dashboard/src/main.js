import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './app.css';
import { ApiError, follow, get, post, token } from './api.js';

const html = htm.bind(h);

const fmt = {
  pct: (v) => (v == null ? '–' : Math.round(v * 100) + ' %'),
  speed: (v) => (v == null ? '–' : v.toFixed(2) + 'x'),
  gb: (mib) => (mib == null ? '–' : (mib / 1024).toFixed(1) + ' GB'),
  dur: (s) => {
    if (s == null) return '–';
    s = Math.round(s);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${sec} s` : `${sec} s`;
  },
  time: (iso) => (iso ? new Date(iso).toLocaleTimeString() : '–'),
};

/** A uPlot chart of series over time; data = [times, ...series], series = [{label, stroke}]. */
function Chart({ data, series, height = 180, yRange }) {
  const box = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    const opts = {
      width: box.current.clientWidth || 600, height,
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, fill: s.fill }))],
      axes: [{}, { size: 50 }],
      scales: { x: { time: true }, y: yRange ? { range: yRange } : {} },
      legend: { show: true },
    };
    plot.current = new uPlot(opts, data, box.current);
    const resize = () => plot.current.setSize({ width: box.current.clientWidth, height });
    window.addEventListener('resize', resize);
    return () => { window.removeEventListener('resize', resize); plot.current.destroy(); };
  }, [series.length]);
  useEffect(() => { if (plot.current) plot.current.setData(data); }, [data]);
  return html`<div class="chart" ref=${box}></div>`;
}

/** A small line of the latest values, 0..max. */
function Sparkline({ values, max = 100 }) {
  if (!values || values.length < 2) return html`<svg class="spark"></svg>`;
  const w = 120, hgt = 24;
  const pts = values.map((v, i) => `${(i / (values.length - 1)) * w},${hgt - (Math.min(v ?? 0, max) / max) * hgt}`).join(' ');
  return html`<svg class="spark" viewBox="0 0 ${w} ${hgt}" preserveAspectRatio="none"><polyline points=${pts} /></svg>`;
}

function Summary({ s, history }) {
  const series = [{ label: 'busy GPUs', stroke: '#2b6cb0', fill: 'rgba(43,108,176,0.15)' }, { label: 'shared GPUs', stroke: '#c05621' }];
  return html`<section class="summary">
    <div class="cards">
      <div class="card"><b data-test="gpus-busy">${s.busy} / ${s.gpus}</b><span>GPUs busy</span></div>
      <div class="card"><b data-test="gpus-shared">${s.shared}</b><span>GPUs shared</span></div>
      <div class="card"><b data-test="queued">${s.queued}</b><span>jobs waiting</span></div>
      <div class="card"><b data-test="done">${s.succeeded}</b><span>jobs done${s.failed ? ` (${s.failed} failed)` : ''}</span></div>
      <div class="card"><b data-test="mean-wait">${fmt.dur(s.mean_wait_s)}</b><span>mean wait</span></div>
      <div class="card"><b data-test="gain">${s.sharing_gain == null ? '–' : '+' + Math.round(s.sharing_gain * 100) + ' %'}</b>
        <span title="extra work done per busy GPU-hour by co-located jobs, from their measured speeds, compared with running them alone">work gained by sharing</span></div>
    </div>
    ${history.t.length > 1 && html`<${Chart} data=${[history.t, history.busy, history.shared]} series=${series} />`}
  </section>`;
}

function JobChip({ j }) {
  if (j.hidden) return html`<div class="chip other">another user's job</div>`;
  return html`<a class="chip ${j.state}" href="#/jobs/${j.id}" data-test="gpu-job-${j.id}">
    <span class="jid">${j.id}</span> ${j.name} <small>${j.owner}</small>
    <span class="speeds">predicted ${fmt.speed(j.predicted_speed)} · observed ${fmt.speed(j.observed_speed)}</span>
  </a>`;
}

function GpuGrid({ gpus }) {
  return html`<section><h2>GPUs</h2><div class="grid">
    ${gpus.map((g) => html`<div class="gpu ${g.unavailable ? 'unavailable' : g.jobs.length > 1 ? 'shared' : g.jobs.length ? 'busy' : 'idle'}" data-test="gpu-${g.index}">
      <div class="gpu-head"><b>GPU ${g.index}</b> <small>${g.node} · ${g.name}</small>
        <span class="badge">${g.jobs.length > 1 ? 'shared' : g.jobs.length ? 'busy' : g.unavailable ? 'not scheduled' : 'idle'}</span></div>
      ${g.unavailable && html`<div class="unavailable" data-test="gpu-${g.index}-unavailable">${g.unavailable}</div>`}
      ${g.held && html`<div class="held" data-test="gpu-${g.index}-held">held for ${g.held_for == null ? "another user's job" : html`<a href="#/jobs/${g.held_for}">job ${g.held_for}</a>`}${g.held_until ? ', free about ' + new Date(g.held_until).toLocaleTimeString() : ''}</div>`}
      <div class="mem"><div class="bar" style=${{ width: g.memory_used_mib == null ? 0 : Math.min(100, (100 * g.memory_used_mib) / g.memory_total_mib) + '%' }}></div>
        <span>${fmt.gb(g.memory_used_mib)} of ${fmt.gb(g.memory_total_mib)}</span></div>
      <div class="util"><${Sparkline} values=${g.utilization_history} /> <span>${g.utilization == null ? '–' : g.utilization + ' %'}</span></div>
      ${g.jobs.map((j) => html`<${JobChip} j=${j} />`)}
    </div>`)}
  </div></section>`;
}

function Queue({ queue }) {
  return html`<section><h2>Queue</h2>
    ${queue.length === 0 ? html`<p class="muted">nothing waits</p>` : html`<table class="queue" data-test="queue">
      <thead><tr><th>#</th><th>job</th><th>user</th><th>GPUs</th><th>priority</th><th>waiting</th><th>why</th></tr></thead>
      <tbody>${queue.map((q) => html`<tr data-test="queue-${q.id}">
        <td>${q.position}</td><td><a href="#/jobs/${q.id}">${q.id} ${q.name}</a></td><td>${q.owner}</td><td>${q.gpus}</td>
        <td>${q.priority}</td><td>${fmt.dur(q.waited_s)}</td><td class="reason" data-test="reason-${q.id}">${q.reason}</td></tr>`)}</tbody>
    </table>`}
  </section>`;
}

function Decisions({ decisions }) {
  return html`<section><h2>Recent decisions</h2><ul class="decisions" data-test="decisions">
    ${decisions.map((d) => html`<li class=${d.kind}><time>${fmt.time(d.at)}</time>${' '}<span class="kind">${d.kind}</span>${' '}<a href="#/jobs/${d.job}">job ${d.job}</a>: ${d.text}</li>`)}
  </ul></section>`;
}

function Overview({ state }) {
  return html`<${Summary} s=${state.summary} history=${state.history} />
    <${GpuGrid} gpus=${state.gpus} />
    <div class="two"><${Queue} queue=${state.queue} /><${Decisions} decisions=${state.decisions} /></div>`;
}

function JobPage({ id, state }) {
  const [job, setJob] = useState(null);
  const [error, setError] = useState(null);
  const [log, setLog] = useState('');
  const [speeds, setSpeeds] = useState(null);
  useEffect(() => { setJob(null); setError(null); setSpeeds(null); }, [id]);
  useEffect(() => {
    get('/jobs/' + id).then(setJob, (e) => setError(e.message));
    get('/jobs/' + id + '/speeds').then(setSpeeds, () => {});
  }, [id, state && state.at]);
  useEffect(() => {
    // the output, followed live: the server sends what is new as it is written, and 'end' once the job is over
    setLog('');
    let stop = () => {};
    let ended = false;
    let retry;
    const start = (from) => {
      let offset = from;
      stop = follow('/jobs/' + id + '/logs/stream', (name, data) => {
        if (name === 'log' && data.offset >= offset) { setLog((l) => l + data.data); offset = data.offset + new TextEncoder().encode(data.data).length; }
        if (name === 'end') { ended = true; stop(); }
      }, () => { if (!ended) retry = setTimeout(() => { setLog(''); start(0); }, 2000); });
    };
    start(0);
    return () => { ended = true; stop(); clearTimeout(retry); };
  }, [id]);
  // the answer to an action is the job without its history: show the whole job again
  const act = (action) => post('/jobs/' + id + '/' + action).then(() => get('/jobs/' + id)).then(setJob, (e) => setError(e.message));
  if (error) return html`<p class="error" data-test="job-error">${error}</p>`;
  if (!job) return html`<p class="muted">loading job ${id}…</p>`;
  const waiting = job.state === 'pending' || job.state === 'suspended';
  const finished = ['succeeded', 'failed', 'cancelled'].includes(job.state);
  const speedSeries = [{ label: 'speed relative to alone (while paired)', stroke: '#2f855a' }, { label: 'iterations/s, relative to its highest', stroke: '#718096' }];
  const rates = speeds ? speeds.iterations_per_second : [];
  const top = Math.max(0, ...rates.filter((v) => v != null));
  const relativeRate = rates.map((v) => (v == null || top === 0 ? null : v / top));
  return html`<section class="job" data-test="job-page">
    <p><a href="#/">← all GPUs</a></p>
    <h2>Job ${job.id}: ${job.name} <span class="badge ${job.state}" data-test="job-state">${job.state}</span></h2>
    <div class="actions">
      ${waiting && !job.held && html`<button data-test="hold" onClick=${() => act('hold')}>Hold</button>`}
      ${waiting && job.held && html`<button data-test="release" onClick=${() => act('release')}>Release</button>`}
      ${!finished && html`<button data-test="cancel" class="danger" onClick=${() => act('cancel')}>Cancel</button>`}
    </div>
    <dl>
      <dt>owner</dt><dd>${job.owner}</dd>
      <dt>priority</dt><dd>${job.priority}${job.held ? ' · held' : ''}${job.after.length ? ' · after ' + job.after.join(', ') : ''}${job.array_job != null ? ` · index ${job.array_index} of array ${job.array_job}` : ''}</dd>
      <dt>why</dt><dd data-test="job-reason">${job.reason}</dd>
      <dt>GPUs</dt><dd>${job.gpus}${job.gpu_ids.length ? ' on ' + job.gpu_ids.join(',') : ''}</dd>
      <dt>workload</dt><dd>${job.signature.label}</dd>
      <dt>partners</dt><dd data-test="job-partners">${job.partners.length ? job.partners.join(', ') : '–'} ${job.shared_with.length ? `(shared with ${job.shared_with.join(', ')} in any run)` : ''}</dd>
      <dt>speed</dt><dd>predicted ${fmt.speed(job.predicted_speed)}, observed ${fmt.speed(job.observed_speed)}</dd>
      <dt>progress</dt><dd>${job.progress_iter ?? '–'}${job.iterations ? ' of ' + job.iterations : ''}</dd>
    </dl>
    ${speeds && speeds.t.length > 1 && html`<h3>Speed over time</h3><${Chart} data=${[speeds.t, speeds.observed, relativeRate]} series=${speedSeries} height=${160} />`}
    <h3>State history</h3>
    <table class="events" data-test="job-events"><tbody>${(job.events || []).map((e) => html`<tr><td>${fmt.time(e.at)}</td><td>${e.from ?? ''} → ${e.to}</td><td>${e.actor}</td><td>${e.reason}</td></tr>`)}</tbody></table>
    <h3>Output</h3>
    <pre class="log" data-test="job-log">${log}</pre>
  </section>`;
}

function Login({ onLogin, error }) {
  const [value, setValue] = useState('');
  return html`<form class="login" onSubmit=${(e) => { e.preventDefault(); onLogin(value.trim()); }}>
    <h1>tandem serve</h1>
    <p>Paste your API token (an admin's is in STATE_DIR/admin.token; <code>tandem users rotate-token NAME</code> makes a new one).</p>
    <input type="password" name="token" autocomplete="off" placeholder="token" value=${value} onInput=${(e) => setValue(e.target.value)} />
    <button type="submit">Sign in</button>
    ${error && html`<p class="error" data-test="login-error">${error}</p>`}
  </form>`;
}

function App() {
  const [signedIn, setSignedIn] = useState(!!token.get());
  const [loginError, setLoginError] = useState(null);
  const [state, setState] = useState(null);
  const [connection, setConnection] = useState('connecting');
  const [route, setRoute] = useState(location.hash);
  useEffect(() => {
    const onHash = () => setRoute(location.hash);
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (!signedIn) return undefined;
    let stop = () => {};
    let retry;
    const start = () => {
      stop = follow('/dashboard/stream', (name, data) => { if (name === 'state') { setState(data); setConnection('live'); } }, (e) => {
        if (e instanceof ApiError && e.status === 401) { token.clear(); setLoginError(e.message); setSignedIn(false); return; }
        setConnection('reconnecting');
        retry = setTimeout(start, 2000);
      });
    };
    start();
    return () => { stop(); clearTimeout(retry); };
  }, [signedIn]);
  if (!signedIn) return html`<${Login} error=${loginError} onLogin=${(t) => { token.set(t); setLoginError(null); setSignedIn(true); }} />`;
  const m = route.match(/^#\/jobs\/(\d+)/);
  return html`<header>
      <a href="#/" class="logo">tandem</a>
      ${state && html`<span class="who" data-test="who">${state.user.name} (${state.user.role}) · policy ${state.policy} · ${state.sharing}</span>`}
      <span class="conn ${connection}" data-test="connection">${connection}</span>
      <button onClick=${() => { token.clear(); setSignedIn(false); setState(null); }}>Sign out</button>
    </header>
    <main>${!state ? html`<p class="muted">connecting…</p>` : m ? html`<${JobPage} id=${m[1]} state=${state} />` : html`<${Overview} state=${state} />`}</main>`;
}

render(html`<${App} />`, document.getElementById('app'));
