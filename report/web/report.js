/* report/web/report.js - the page logic of report.html, inlined by `fabsim report`.
 *
 * Reads the runs embedded as JSON (#fabsim-data, written by src/report/report.c)
 * and draws every chart with Vega-Lite through vega-embed (inlined too: the page
 * needs no network). Each lab's claim, verdict and findings are computed by
 * fabsim in C from the runs through the lab's lab.yaml, and its charts are
 * the ones lab.yaml lists (CHARTS below); this file only lays them out. window.__fabsim tells a test how many
 * charts were asked for, how many rendered, and any error.
 */
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('fabsim-data').textContent);
  const state = (window.__fabsim = { charts: 0, rendered: 0, errors: [], done: false, kinds: {} });
  let kind = 'generic'; // the lab.yaml chart type being drawn (state.kinds counts rendered charts per type)
  const app = document.getElementById('app');
  const pending = [];
  const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

  // ---- small helpers -------------------------------------------------------
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'html') e.innerHTML = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  }
  // A Markdown link target the page may follow: http(s), mailto, or relative
  // (no scheme before the first / ? #). javascript:, data: and the rest stay text.
  function safeHref(u) {
    return /^(https?:|mailto:)/i.test(u) || !/^[^/?#]*:/.test(u);
  }
  // A lab guide's Markdown, rendered by marked (npm, pinned in
  // package-lock.json, inlined like vega): tables and all of CommonMark/GFM.
  // Raw HTML in a guide is dropped (labdoc.py's <!-- m: --> marks are
  // comments; the number between them stays), links keep safe targets only,
  // and headings move two levels down under the lab's own.
  const md = new marked.Marked({ gfm: true, renderer: {
    html() { return ''; },
    link({ href, tokens }) { const text = this.parser.parseInline(tokens); return safeHref(href) ? `<a href="${esc(href)}">${text}</a>` : text; },
    image({ text }) { return esc(text); },
    heading({ tokens, depth }) { const l = Math.min(depth + 2, 6); return `<h${l}>${this.parser.parseInline(tokens)}</h${l}>\n`; },
  } });
  function markdown(text, skipTitle) {
    if (skipTitle) text = text.replace(/^\s*# [^\n]*\n/, '');
    return md.parse(text);
  }
  const fmt = (v, d = 1) => (v == null || !isFinite(v) ? '–' : Number(v).toLocaleString('en-US', { maximumFractionDigits: d }));
  const ran = (s) => s.status === 'ok' && s.results;
  const badge = (st) => el('span', { class: 'badge ' + (st === 'ok' ? 'ok' : st === 'not_available' || st === 'not_run' ? 'na' : 'err') },
    st === 'ok' ? 'ran' : st === 'not_available' ? 'not yet available' : st === 'not_run' ? 'not run' : 'error');
  function doneUs(r) {
    const s = r.summary;
    if (!s.completed) return null;
    const d = s.done_ns != null && s.done_ns >= 0 ? s.done_ns : s.sim_time_ns;
    return d / 1000;
  }
  const maxOf = (arr, f) => arr.reduce((m, x) => Math.max(m, f(x)), 0);

  // ---- charts ----------------------------------------------------------------
  function chart(parent, caption, spec) {
    const box = el('div', { class: 'chart' });
    if (caption) box.append(el('div', { class: 'cap' }, caption));
    const target = el('div', { class: 'vega-target' });
    box.append(target);
    parent.append(box);
    state.charts++;
    spec.$schema = SCHEMA;
    if (!spec.config) spec.config = { view: { stroke: '#ccc' }, axis: { labelLimit: 220 } };
    const k = kind;
    const p = vegaEmbed(target, spec, { actions: false, renderer: 'svg' })
      .then(() => { state.rendered++; state.kinds[k] = (state.kinds[k] || 0) + 1; target.setAttribute('data-rendered', '1'); })
      .catch((e) => { state.errors.push(caption + ': ' + e); target.append(el('div', { class: 'na-box' }, 'chart failed: ' + e)); });
    pending.push(p);
  }
  function notYet(parent, what, scns) {
    const names = scns.map((s) => s.label).join(', ');
    parent.append(el('div', { class: 'na-box' }, `${what}: not yet available (waiting for ${names || 'its scenarios'}).`));
  }

  // log: a symlog value axis (zeros stay drawable) for values that span decades.
  function countersChart(parent, scns, metrics, caption, log) {
    const ok = scns.filter(ran);
    if (!ok.length) return notYet(parent, caption, scns);
    let rows = [];
    for (const s of ok) for (const [key, name] of metrics) rows.push({ scenario: s.label, metric: name, value: +(key(s.results) || 0) });
    // A metric that is zero in every run gets a note instead of an empty panel.
    const zero = metrics.map((m) => m[1]).filter((name) => rows.every((r) => r.metric !== name || r.value === 0));
    rows = rows.filter((r) => !zero.includes(r.metric));
    if (zero.length) caption += ` (zero in every run: ${zero.join(', ')})`;
    if (!rows.length) return parent.append(el('div', { class: 'note' }, caption));
    chart(parent, caption, {
      data: { values: rows },
      facet: { column: { field: 'metric', type: 'nominal', title: null, sort: metrics.map((m) => m[1]).filter((n) => !zero.includes(n)) } },
      resolve: { scale: { x: 'independent' } },
      spec: {
        width: 170, height: { step: 18 },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: { field: 'scenario', type: 'nominal', title: null, sort: null },
          x: { field: 'value', type: 'quantitative', title: log ? '(log)' : null, ...(log ? { scale: { type: 'symlog' } } : {}) },
          color: { field: 'scenario', type: 'nominal', legend: null, sort: null },
        },
      },
    });
  }

  // Queue and pause timelines of each run's busiest links (links.csv), one run at a time.
  function timelines(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.series && s.series.links.length);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok) {
      const t = s.series.t_ns;
      for (const l of s.series.links)
        for (let i = 0; i < t.length; i++)
          rows.push({ scenario: s.label, link: l.name, t_us: t[i] / 1000, queue_kib: l.q[i] / 1024, paused_pct: t[i] > 0 ? Math.min(100, 100 * l.paused_ns[i] / (t[i] - (i ? t[i - 1] : 0))) : 0 });
    }
    const labels = ok.map((s) => s.label);
    const anyPause = rows.some((r) => r.paused_pct > 0);
    chart(parent, caption + ' (pick a run)' + (anyPause ? '' : '; no pauses or credit stalls in any run'), {
      data: { values: rows },
      params: [{ name: 'run', value: labels[0], bind: { input: 'select', options: labels, name: 'run: ' } }],
      transform: [{ filter: 'datum.scenario === run' }],
      vconcat: [
        { width: 760, height: 170, mark: { type: 'line', interpolate: 'step-before', tooltip: true },
          encoding: { x: { field: 't_us', type: 'quantitative', title: 'time (us)' },
                      y: { field: 'queue_kib', type: 'quantitative', title: 'queue (KiB)' },
                      color: { field: 'link', type: 'nominal' } } },
        { width: 760, height: 110, mark: { type: 'area', interpolate: 'step-before', opacity: 0.6, tooltip: true },
          encoding: { x: { field: 't_us', type: 'quantitative', title: 'time (us)' },
                      y: { field: 'paused_pct', type: 'quantitative', title: 'paused / stalled (%)', stack: null },
                      color: { field: 'link', type: 'nominal' } } },
      ].slice(0, anyPause ? 2 : 1),
    });
  }

  // Delivered throughput (bytes into hosts per interval) over time, with failure marks.
  function throughput(parent, scns, caption, marks) {
    const ok = scns.filter((s) => ran(s) && s.series);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [], rules = [];
    for (const s of ok) {
      const t = s.series.t_ns;
      for (let i = 0; i < t.length; i++) rows.push({ scenario: s.label, t_us: t[i] / 1000, gbps: s.series.rx_gbps[i] });
      if (marks)
        for (const c of s.results.control_plane || []) {
          rules.push({ scenario: s.label, t_us: c.at_ns / 1000, what: 'link down' });
          if (c.rerouted_at_ns != null) rules.push({ scenario: s.label, t_us: c.rerouted_at_ns / 1000, what: 'rerouted' });
          if (c.local_reroute_at_ns != null) rules.push({ scenario: s.label, t_us: c.local_reroute_at_ns / 1000, what: 'local reroute (SHIELD)' });
        }
    }
    // Runs of tens of ms and more read better in ms; a run whose events are
    // decades apart (a failure at 50 ms, a recovery at 10 s) gets a log time
    // axis, so that the microseconds and the seconds both show.
    const ms = rows.some((r) => r.t_us > 20000);
    if (ms) { for (const r of rows) r.t_us /= 1000; for (const r of rules) r.t_us /= 1000; }
    const pos = rows.map((r) => r.t_us).filter((x) => x > 0);
    const log = pos.length > 0 && Math.max(...pos) / Math.min(...pos) > 1000;
    const unit = ms ? 'ms' : 'us';
    const tAxis = log ? { field: 't_us', type: 'quantitative', title: `time (${unit}, log)`, scale: { type: 'log' }, axis: { labelOverlap: true } }
                      : { field: 't_us', type: 'quantitative', title: `time (${unit})` };
    const keep = (r) => !log || r.t_us > 0;
    const layers = [{ data: { values: rows.filter(keep) }, mark: { type: 'line', interpolate: 'step-before', tooltip: true },
      encoding: { x: tAxis, y: { field: 'gbps', type: 'quantitative', title: 'delivered (Gbit/s)' },
                  color: { field: 'scenario', type: 'nominal', sort: null } } }];
    // Events as dashed rules told apart by their dash (legend), not by text
    // labels that stack when events are close.
    if (rules.length)
      layers.push({ data: { values: rules.filter(keep) }, mark: { type: 'rule', tooltip: true },
        encoding: { x: tAxis, color: { field: 'scenario', type: 'nominal', sort: null },
                    strokeDash: { field: 'what', type: 'nominal', title: 'event', scale: { range: [[4, 3], [1, 2], [8, 3]] } },
                    strokeWidth: { value: 1.5 }, opacity: { value: 0.9 } } });
    chart(parent, caption, { width: 760, height: 230, layer: layers });
  }

  function busbwChart(parent, scns, caption, byRanks) {
    const ok = scns.filter((s) => ran(s) && (s.results.collectives || []).length);
    if (!ok.length) return notYet(parent, caption, scns);
    let rows = [];
    for (const s of ok) for (const c of s.results.collectives) rows.push({ scenario: s.label, algorithm: c.algorithm, size_bytes: c.size, ranks: c.ranks, busbw: c.busbw_gbps, time_us: c.time_ns / 1000 });
    if (byRanks) { // one size for every node count: the largest all runs have
      const common = Math.min(...ok.map((s) => Math.max(...s.results.collectives.map((c) => c.size))));
      rows = rows.filter((r) => r.size_bytes === common);
      caption += ` (${common / 1048576} MiB)`;
    }
    chart(parent, caption, {
      width: 600, height: 260, data: { values: rows },
      mark: { type: 'line', point: true, tooltip: true },
      encoding: {
        x: byRanks ? { field: 'ranks', type: 'quantitative', title: 'nodes' }
                   : { field: 'size_bytes', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'message size (log2)',
                       axis: { labelExpr: "datum.value >= 1048576 ? format(datum.value / 1048576, '.3~') + ' MiB' : format(datum.value / 1024, '.3~') + ' KiB'" } },
        y: { field: 'busbw', type: 'quantitative', title: 'busbw (Gbit/s)', aggregate: 'mean' },
        color: { field: byRanks ? 'algorithm' : 'scenario', type: 'nominal', sort: null },
      },
    });
  }

  // kind: moe (results.json "moe", docs/outputs.md): per layer and pass, the
  // dispatch and combine all-to-all times, stacked, one bar per layer.
  function moeChart(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && (s.results.moe || []).length);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok) for (const m of s.results.moe) for (const r of m.per_layer) {
      if (r.iteration !== m.per_layer[0].iteration) continue; // the first iteration
      for (const [what, v] of [['dispatch', r.dispatch_ns], ['combine', r.combine_ns]])
        if (v != null) rows.push({ scenario: s.label, layer: `${r.pass === 'forward' ? 'F' : 'B'}${r.layer}`, order: (r.pass === 'forward' ? 0 : 10000) + (r.pass === 'forward' ? r.layer : m.layers - 1 - r.layer), phase: what, us: v / 1000, imbalance: r.recv_bytes_max / r.recv_bytes_mean });
    }
    chart(parent, caption, {
      width: 600, height: 240, data: { values: rows },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        x: { field: 'layer', type: 'ordinal', sort: { field: 'order' }, title: 'layer (F forward, B backward, in run order)' },
        y: { field: 'us', type: 'quantitative', title: 'all-to-all time (us)', stack: 'zero' },
        color: { field: 'phase', type: 'nominal' },
        ...(ok.length > 1 ? { column: { field: 'scenario', type: 'nominal' } } : {}),
      },
    });
  }

  // kind: inference (results.json "inference"): each request's TTFT split
  // into queueing, prefill and KV-cache transfer, by arrival.
  function inferenceChart(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && (s.results.inference || []).length);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok) for (const j of s.results.inference) for (const r of j.requests_detail)
      for (const [what, v] of [['queue', r.queue_ns], ['prefill', r.prefill_ns], ['KV transfer', r.kv_transfer_ns]])
        if (v != null) rows.push({ scenario: s.label, request: r.request, arrival_us: r.arrival_ns / 1000, phase: what, us: v / 1000 });
    chart(parent, caption, {
      width: 600, height: 240, data: { values: rows },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        x: { field: 'request', type: 'ordinal', title: 'request (in arrival order)' },
        y: { field: 'us', type: 'quantitative', title: 'time to first token (us)', stack: 'zero' },
        color: { field: 'phase', type: 'nominal', sort: ['queue', 'prefill', 'KV transfer'] },
        ...(ok.length > 1 ? { row: { field: 'scenario', type: 'nominal' } } : {}),
      },
    });
  }

  // `fabsim run --against LOG`: fabsim's busbw and the measured nccl-tests
  // log's per size, on one chart (results.json "against", docs/inputs.md).
  function againstChart(parent, scns, caption) {
    const rows = [];
    for (const s of scns.filter((x) => ran(x) && x.results.against))
      for (const r of s.results.against.rows) {
        // Gbit/s, the report's one unit for rates (nccl-tests logs give GB/s).
        if (r.measured_busbw_GBps != null) rows.push({ size_bytes: r.size, busbw: 8 * r.measured_busbw_GBps, source: 'measured (' + s.results.against.file.split('/').pop() + ')' });
        if (r.fabsim_busbw_GBps != null) rows.push({ size_bytes: r.size, busbw: 8 * r.fabsim_busbw_GBps, source: 'fabsim ' + s.label });
      }
    chart(parent, caption, {
      width: 600, height: 260, data: { values: rows },
      mark: { type: 'line', point: true, tooltip: true },
      encoding: {
        x: { field: 'size_bytes', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'message size (log2)' },
        y: { field: 'busbw', type: 'quantitative', scale: { type: 'log' }, title: 'busbw (Gbit/s, log)' },
        color: { field: 'source', type: 'nominal', sort: null },
      },
    });
  }

  // One point per collective job: how far apart the jobs finish shows whether
  // some of them were stuck behind collisions.
  function jobsChart(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && (s.results.collectives || []).length);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok)
      for (const c of s.results.collectives)
        if (c.time_ns != null) rows.push({ scenario: s.label, job: 'job ' + c.job, time_us: c.time_ns / 1000, busbw: c.busbw_gbps });
    chart(parent, caption, {
      width: 600, height: 30 * ok.length, data: { values: rows },
      mark: { type: 'point', filled: true, size: 90, tooltip: true },
      encoding: {
        y: { field: 'scenario', type: 'nominal', sort: null, title: null },
        x: { field: 'time_us', type: 'quantitative', title: 'job completion time (us)' },
        color: { field: 'job', type: 'nominal' },
      },
    });
  }

  function spineHeatmap(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.results.links.some((l) => l.tier === 'leaf-spine'));
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok) for (const l of s.results.links) if (l.tier === 'leaf-spine') rows.push({ scenario: s.label, link: l.name, utilization: l.utilization, mbytes: l.bytes / 1e6 });
    chart(parent, caption, {
      data: { values: rows },
      mark: { type: 'rect', tooltip: true },
      width: { step: 14 }, height: { step: 22 },
      encoding: {
        x: { field: 'link', type: 'nominal', title: 'leaf-spine link (direction)', sort: null, axis: { labelAngle: -60, labelFontSize: 9 } },
        y: { field: 'scenario', type: 'nominal', title: null, sort: null },
        color: { field: 'mbytes', type: 'quantitative', title: 'MB carried', scale: { scheme: 'blues' } },
      },
    });
  }

  function ballsIntoBins(parent, scns, caption) {
    const pts = [];
    for (const s of scns.filter(ran)) {
      const links = s.results.links, flows = s.results.flows || [];
      if (!flows.length) continue;
      const size = flows[0].size;
      const up = links.filter((l) => l.from.startsWith('leaf') && l.to.startsWith('spine'));
      const leaves = new Set(up.map((l) => l.from));
      if (!up.length) continue;
      const n = up.length / leaves.size;
      const hostLeaf = {};
      for (const l of links) if (l.from.startsWith('h') && l.to.startsWith('leaf')) hostLeaf[l.from] = l.to;
      const perLeaf = {};
      for (const f of flows) if (hostLeaf[f.src] !== hostLeaf[f.dst]) perLeaf[hostLeaf[f.src]] = (perLeaf[hostLeaf[f.src]] || 0) + 1;
      const k = Math.max(...Object.values(perLeaf), 0);
      const used = up.filter((l) => l.bytes >= size / 2).length;
      pts.push({ ratio: k / n, fraction: used / up.length, scenario: s.label, n });
    }
    if (!pts.length) return notYet(parent, caption, scns);
    const n = pts[0].n, curve = [];
    for (let r = 0.25; r <= 4.0001; r += 0.0625) curve.push({ ratio: r, fraction: 1 - Math.pow(1 - 1 / n, r * n), what: `balls into bins 1-(1-1/n)^k, n=${n}` });
    chart(parent, caption, {
      width: 560, height: 260,
      layer: [
        { data: { values: curve }, mark: { type: 'line', color: '#888', strokeDash: [5, 3] },
          encoding: { x: { field: 'ratio', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'flows per uplink k/n' },
                      y: { field: 'fraction', type: 'quantitative', title: 'fraction of uplinks used', scale: { domain: [0, 1] } } } },
        { data: { values: pts }, mark: { type: 'point', filled: true, size: 80, tooltip: true },
          encoding: { x: { field: 'ratio', type: 'quantitative' }, y: { field: 'fraction', type: 'quantitative' }, color: { value: '#c0392b' } } },
      ],
    });
  }

  // The topology with the deadlock's cycle of ports drawn in red, or (byLoad)
  // every link direction coloured by its utilisation over the run.
  function topologyChart(parent, s, caption, byLoad) {
    const links = s.results.links;
    const nodes = new Map();
    const tierOf = (name) => (/^h\d/.test(name) ? 0 : /^(leaf|edge|sw)/.test(name) ? 1 : /^agg/.test(name) ? 2 : 3);
    for (const l of links) for (const n of [l.from, l.to]) if (!nodes.has(n)) nodes.set(n, { name: n, tier: tierOf(n) });
    const sws = [...nodes.values()].filter((n) => n.name.startsWith('sw'));
    const ring = sws.length >= 3 && ![...nodes.values()].some((n) => n.tier >= 2);
    if (ring) { // switches on a circle, each host just outside its switch
      sws.forEach((n, i) => { const a = 2 * Math.PI * i / sws.length; n.x = Math.cos(a); n.y = Math.sin(a); });
      for (const l of links) {
        const h = nodes.get(l.from), sw = nodes.get(l.to);
        if (h.tier === 0 && sw.name.startsWith('sw') && h.x === undefined) { h.x = sw.x * 1.5; h.y = sw.y * 1.5; }
      }
    } else {
      const byTier = {};
      for (const n of nodes.values()) (byTier[n.tier] = byTier[n.tier] || []).push(n);
      for (const [t, list] of Object.entries(byTier)) list.forEach((n, i) => { n.x = (i + 1) / (list.length + 1); n.y = +t; });
    }
    const cyc = new Set(s.results.summary.deadlock.cycle || []);
    const edges = [];
    const seen = new Set();
    for (const l of links) {
      const a = nodes.get(l.from), b = nodes.get(l.to);
      const key = [l.from, l.to].sort().join('|');
      const inCycle = cyc.has(l.name);
      if (byLoad) { // one edge per cable: the busier direction
        const prev = edges.find((e) => e.key === key);
        const u = 100 * (l.utilization || 0);
        if (prev) { if (u > prev.util_pct) { prev.util_pct = u; prev.link = l.name; } continue; }
        edges.push({ key, x: a.x, y: a.y, x2: b.x, y2: b.y, link: l.name, util_pct: u });
        continue;
      }
      if (seen.has(key) && !inCycle) continue;
      seen.add(key);
      edges.push({ x: a.x, y: a.y, x2: b.x, y2: b.y, link: l.name, cycle: inCycle ? 'in the deadlock cycle' : 'link' });
    }
    const nodeRows = [...nodes.values()].map((n) => ({ x: n.x, y: n.y, name: n.name, kind: n.tier === 0 ? 'host' : 'switch' }));
    const axis = { title: null, axis: null };
    chart(parent, caption, {
      width: 420, height: 320,
      layer: [
        { data: { values: edges }, mark: { type: 'rule', tooltip: true },
          encoding: { x: { field: 'x', type: 'quantitative', ...axis, scale: { padding: 30, zero: false } }, y: { field: 'y', type: 'quantitative', ...axis, scale: { padding: 30, zero: false } },
                      x2: { field: 'x2' }, y2: { field: 'y2' },
                      ...(byLoad
                        ? { color: { field: 'util_pct', type: 'quantitative', title: 'utilisation (%)', scale: { scheme: 'orangered', domain: [0, 100] } },
                            strokeWidth: { value: 4 } }
                        : { color: { field: 'cycle', type: 'nominal', scale: { domain: ['link', 'in the deadlock cycle'], range: ['#bbb', '#d62728'] }, title: null },
                            strokeWidth: { condition: { test: "datum.cycle !== 'link'", value: 4 }, value: 1.5 } }) } },
        { data: { values: nodeRows }, mark: { type: 'point', filled: true, size: 220, tooltip: true },
          encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' },
                      shape: { field: 'kind', type: 'nominal', title: null }, color: { value: '#10233f' } } },
        { data: { values: nodeRows }, mark: { type: 'text', dy: -14, fontSize: 11 },
          encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'name' } } },
      ],
    });
  }

  function fctChart(parent, scns, caption, dst, log) {
    const ok = scns.filter(ran);
    if (!ok.length) return notYet(parent, caption, scns);
    const rows = [];
    for (const s of ok) for (const f of s.results.flows || []) if (f.fct_ns != null) rows.push({ scenario: s.label, flow: `${f.src}→${f.dst}`, fct_us: f.fct_ns / 1000, victim: dst && f.dst === dst ? 'victim / tenant A' : 'other flows' });
    if (!rows.length) return notYet(parent, caption, scns);
    chart(parent, caption, {
      data: { values: rows }, width: 560, height: { step: 22 },
      mark: { type: 'tick', thickness: 3, size: 16, tooltip: true },
      encoding: { y: { field: 'scenario', type: 'nominal', title: null, sort: null },
                  x: { field: 'fct_us', type: 'quantitative', title: 'flow completion time (us' + (log ? ', log)' : ')'),
                       ...(log ? { scale: { type: 'log' } } : {}) },
                  color: { field: 'victim', type: 'nominal', title: null } },
    });
  }

  // ---- tables ----------------------------------------------------------------
  function summaryTable(scns) {
    const cols = [
      ['done (us)', (r) => doneUs(r)], ['dropped', (r) => r.summary.packets_dropped], ['retransm.', (r) => r.summary.retransmitted_packets],
      // Per link, the busiest: a sum over links exceeds the run's length.
      ['pauses', (r) => r.summary.pause_frames], ['paused, busiest link (us)', (r) => maxOf(r.links, (l) => l.paused_ns || 0) / 1000],
      ['ECN', (r) => r.summary.ecn_marked], ['CNPs', (r) => r.summary.cnps], ['credit stall, busiest link (us)', (r) => maxOf(r.links, (l) => l.credit_stall_ns || 0) / 1000],
      ['max queue (KiB)', (r) => maxOf(r.links, (l) => l.max_queue_bytes) / 1024],
      ['deadlock', (r) => (r.summary.deadlock.detected ? 'yes @' + fmt(r.summary.deadlock.at_ns / 1000) + 'us' : 'no')],
    ];
    const t = el('table', {});
    t.append(el('tr', {}, el('th', { class: 'l' }, 'scenario'), el('th', { class: 'l' }, 'status'), ...cols.map((c) => el('th', {}, c[0]))));
    for (const s of scns) {
      const tr = el('tr', {}, el('td', { class: 'l' }, s.label), el('td', { class: 'l' }, badge(s.status)));
      if (ran(s)) for (const c of cols) { const v = c[1](s.results); tr.append(el('td', {}, typeof v === 'string' ? v : fmt(v))); }
      else tr.append(el('td', { class: 'msg', colspan: String(cols.length) }, s.message || ''));
      t.append(tr);
    }
    return t;
  }

  function compareTable(scns) {
    const rows = [
      ['completed', (r) => (r.summary.completed ? 'yes' : 'no')], ['done (us)', (r) => fmt(doneUs(r), 2)],
      ['simulated (us)', (r) => fmt(r.summary.sim_time_ns / 1000, 2)], ['packets delivered', (r) => fmt(r.summary.packets_delivered, 0)],
      ['packets dropped', (r) => fmt(r.summary.packets_dropped, 0)], ['retransmitted', (r) => fmt(r.summary.retransmitted_packets, 0)],
      ['pause frames', (r) => fmt(r.summary.pause_frames, 0)], ['paused, busiest link (us)', (r) => fmt(maxOf(r.links, (l) => l.paused_ns || 0) / 1000, 2)],
      ['ECN marked', (r) => fmt(r.summary.ecn_marked, 0)], ['CNPs', (r) => fmt(r.summary.cnps, 0)],
      ['credit stall, busiest link (us)', (r) => fmt(maxOf(r.links, (l) => l.credit_stall_ns || 0) / 1000, 2)],
      ['max queue (KiB)', (r) => fmt(maxOf(r.links, (l) => l.max_queue_bytes) / 1024)],
      ['busiest spine link (util.)', (r) => fmt(maxOf(r.links.filter((l) => l.tier === 'leaf-spine'), (l) => l.utilization), 3)],
      ['deadlock', (r) => (r.summary.deadlock.detected ? 'yes' : 'no')],
      ['timeouts', (r) => fmt(r.summary.timeouts, 0)],
    ];
    // Ultra Ethernet's mechanisms, when a variant runs it ("-" under the other fabrics).
    const uet = (k) => (r) => (r.summary.uet ? fmt(r.summary.uet[k], 0) : '-');
    if (scns.some((s) => ran(s) && s.results.summary.uet))
      rows.push(['UET trims', uet('trims')], ['UET trim NAKs', uet('trim_naks')], ['UET entropy changes', uet('entropy_changes')],
                ['UET credit grants', uet('credit_grants')]);
    const t = el('table', {});
    t.append(el('tr', {}, el('th', { class: 'l' }, ''), ...scns.map((s) => el('th', {}, s.label))));
    for (const [name, f] of rows) t.append(el('tr', {}, el('td', { class: 'l' }, name), ...scns.map((s) => el('td', {}, ran(s) ? f(s.results) : s.status === 'not_available' ? 'not yet available' : 'error'))));
    return t;
  }

  // Bill of materials per design: counts from the topology, prices typed by the reader.
  function bom(parent, scns) {
    const s = scns.find(ran) || DATA.labs.flatMap((l) => l.scenarios).find(ran);
    let hosts = 0, leaves = 0, spines = 0, hostLinks = 0, fabricLinks = 0, from = '';
    if (s) {
      const names = new Set();
      for (const l of s.results.links) { names.add(l.from); names.add(l.to); }
      for (const n of names) { if (/^h\d+$/.test(n)) hosts++; else if (/^(leaf|edge|sw)/.test(n)) leaves++; else if (/^(spine|agg|core)/.test(n)) spines++; }
      for (const l of s.results.links) { if (l.tier.startsWith('host-')) hostLinks++; else fabricLinks++; }
      hostLinks /= 2; fabricLinks /= 2; from = s.label;
    }
    if (!s) return notYet(parent, 'Bill of materials', scns);
    const prices = [
      ['ib_switch', 'InfiniBand switch (64 ports)', 25000], ['eth_switch', 'Ethernet switch (64 ports)', 20000],
      ['ib_nic', 'InfiniBand HCA', 1800], ['eth_nic', 'Ethernet RoCE NIC / SuperNIC', 1500],
      ['ib_optic', 'InfiniBand optic (per cable end)', 900], ['eth_optic', 'Ethernet optic (per cable end)', 700],
      ['cable', 'fibre or DAC cable', 150],
    ];
    const box = el('div', { class: 'bom' });
    box.append(el('p', { class: 'note' }, `Counts from the topology of “${from}”: ${hosts} hosts, ${leaves} leaf switches, ${spines} spine switches, ${hostLinks} host links, ${fabricLinks} switch-to-switch links. `
      + 'Prices are parameters: the defaults are ILLUSTRATIVE placeholders, not quotes; type your own.'));
    const inputs = {};
    const pt = el('table', {});
    pt.append(el('tr', {}, el('th', { class: 'l' }, 'item'), el('th', {}, 'unit price (illustrative)')));
    for (const [k, name, v] of prices) {
      inputs[k] = el('input', { type: 'number', min: '0', step: '50', value: String(v), 'aria-label': name });
      pt.append(el('tr', {}, el('td', { class: 'l' }, name), el('td', {}, inputs[k])));
    }
    const out = el('table', {});
    const redraw = () => {
      const p = (k) => +inputs[k].value || 0;
      const links = hostLinks + fabricLinks;
      const ib = (leaves + spines) * p('ib_switch') + hosts * p('ib_nic') + 2 * links * p('ib_optic') + links * p('cable');
      const eth = (leaves + spines) * p('eth_switch') + hosts * p('eth_nic') + 2 * links * p('eth_optic') + links * p('cable');
      out.innerHTML = '';
      out.append(el('tr', {}, el('th', { class: 'l' }, 'design'), el('th', {}, 'switches'), el('th', {}, 'NICs'), el('th', {}, 'optics'), el('th', {}, 'cables'), el('th', {}, 'total')));
      out.append(el('tr', {}, el('td', { class: 'l' }, 'InfiniBand'), el('td', {}, fmt((leaves + spines) * p('ib_switch'), 0)), el('td', {}, fmt(hosts * p('ib_nic'), 0)), el('td', {}, fmt(2 * links * p('ib_optic'), 0)), el('td', {}, fmt(links * p('cable'), 0)), el('td', {}, fmt(ib, 0))));
      out.append(el('tr', {}, el('td', { class: 'l' }, 'RoCEv2 Ethernet'), el('td', {}, fmt((leaves + spines) * p('eth_switch'), 0)), el('td', {}, fmt(hosts * p('eth_nic'), 0)), el('td', {}, fmt(2 * links * p('eth_optic'), 0)), el('td', {}, fmt(links * p('cable'), 0)), el('td', {}, fmt(eth, 0))));
    };
    for (const i of Object.values(inputs)) i.addEventListener('input', redraw);
    redraw();
    box.append(el('h3', {}, 'Bill of materials per design'), pt, out);
    parent.append(box);
  }

  // ---- the course's pictures -------------------------------------------------
  // Spine-link utilisation over time: link x time, from the sampled series
  // (links.csv binned by fabsim), one panel per run.
  function spineTime(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.series && (s.series.spine || []).length);
    if (!ok.length) return notYet(parent, caption, scns);
    const panels = ok.map((s) => {
      const rows = [], t = s.series.spine_t_ns;
      const ms = t.length && t[t.length - 1] > 2e7;
      for (const l of s.series.spine)
        for (let i = 0; i < t.length; i++)
          rows.push({ link: l.name, t: ms ? t[i] / 1e6 : t[i] / 1e3, util_pct: 100 * l.util[i] });
      return { title: s.label, data: { values: rows }, width: 700, height: { step: 9 },
               mark: { type: 'rect', tooltip: true },
               encoding: { x: { field: 't', type: 'ordinal', title: ms ? 'time (ms, end of bin)' : 'time (us, end of bin)',
                                axis: { labelExpr: "format(datum.value, '.3~s')", labelOverlap: true } },
                           y: { field: 'link', type: 'nominal', title: null, sort: null, axis: { labelFontSize: 8 } },
                           color: { field: 'util_pct', type: 'quantitative', title: 'utilisation (%)',
                                    scale: { scheme: 'inferno', domain: [0, 100], reverse: true } } } };
    });
    chart(parent, caption, { vconcat: panels, resolve: { scale: { color: 'shared' } } });
  }

  // Offered load per spine link: flows hashed onto it x their rate (one flow's
  // bytes = the median host uplink's; a flow counts by its share of bytes),
  // so two colliding flows show as 200 %. Same rule as offered_max_pct() in
  // src/report/expr.c.
  function offeredRows(s) {
    const links = s.results.links;
    const host = links.filter((l) => l.tier === 'host-leaf' && /^leaf/.test(l.to) && l.bytes > 0).map((l) => l.bytes).sort((a, b) => a - b);
    if (!host.length) return null;
    const unit = host[Math.floor(host.length / 2)];
    const rows = links.filter((l) => l.tier === 'leaf-spine').map((l) => ({ scenario: s.label, link: l.name, flows: l.bytes / unit, offered_pct: 100 * l.bytes / unit }));
    const unused = rows.length ? 100 * (1 - rows.reduce((a, r) => a + Math.min(r.flows, 1), 0) / rows.length) : 0;
    return { rows, unused };
  }
  function offeredLoad(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.results.links.some((l) => l.tier === 'leaf-spine'));
    if (!ok.length) return notYet(parent, caption, scns);
    let rows = [];
    const notes = [];
    for (const s of ok) { const o = offeredRows(s); if (!o) continue; rows = rows.concat(o.rows); notes.push(`${s.label}: ${fmt(o.unused, 0)} % of spine capacity unused`); }
    if (!rows.length) return notYet(parent, caption, scns);
    chart(parent, caption + ' — ' + notes.join('; ') + ' (course: "~60 %")', {
      data: { values: rows },
      facet: { row: { field: 'scenario', type: 'nominal', title: null, sort: null, header: { labelAngle: 0, labelAlign: 'left' } } },
      spec: {
        width: { step: 16 }, height: 110,
        layer: [
          { mark: { type: 'bar', tooltip: true },
            encoding: { x: { field: 'link', type: 'nominal', sort: null, title: 'leaf-spine link (direction)', axis: { labelAngle: -60, labelFontSize: 8 } },
                        y: { field: 'offered_pct', type: 'quantitative', title: 'offered load (%)' },
                        // Over capacity only beyond 100 % + 1 %: adaptive routing's 100.04 % is a full link, not a hot one.
                        color: { condition: { test: 'datum.offered_pct > 101', value: '#d62728' }, value: '#4c78a8' } } },
          { mark: { type: 'rule', strokeDash: [4, 3], color: '#333' }, encoding: { y: { datum: 100 } } },
        ],
      },
    });
  }

  // DCQCN sending rate per sender over time (results.json "cc_rates").
  function dcqcnRate(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && (s.results.cc_rates || []).length);
    if (!ok.length) return parent.append(el('div', { class: 'na-box' }, `${caption}: not yet available (no run wrote a per-sender rate series, results.json "cc_rates").`));
    const rows = [];
    for (const s of ok) for (const q of s.results.cc_rates) for (let i = 0; i < q.t_ns.length; i++) rows.push({ scenario: s.label, sender: q.src + '→' + q.dst, t_us: q.t_ns[i] / 1000, gbps: q.gbps[i] });
    chart(parent, caption, {
      data: { values: rows },
      facet: { row: { field: 'scenario', type: 'nominal', title: null, sort: null } },
      spec: { width: 700, height: 150, mark: { type: 'line', interpolate: 'step-after', tooltip: true },
              encoding: { x: { field: 't_us', type: 'quantitative', title: 'time (us)' }, y: { field: 'gbps', type: 'quantitative', title: 'sending rate (Gbit/s)' },
                          color: { field: 'sender', type: 'nominal' } } },
      resolve: { scale: { x: 'independent' } },
    });
  }

  // Two runs' queue and pause timelines side by side, on the same scales.
  function timelinesPair(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.series && s.series.links.length).slice(0, 2);
    if (ok.length < 2) return notYet(parent, caption, scns);
    const panel = (s) => {
      const rows = [], t = s.series.t_ns;
      for (const l of s.series.links)
        for (let i = 0; i < t.length; i++)
          rows.push({ link: l.name, t_us: t[i] / 1000, queue_kib: l.q[i] / 1024, paused_pct: t[i] > 0 ? Math.min(100, 100 * l.paused_ns[i] / (t[i] - (i ? t[i - 1] : 0))) : 0 });
      return { title: s.label, data: { values: rows }, vconcat: [
        { width: 360, height: 150, mark: { type: 'line', interpolate: 'step-before', tooltip: true },
          encoding: { x: { field: 't_us', type: 'quantitative', title: 'time (us)' }, y: { field: 'queue_kib', type: 'quantitative', title: 'queue (KiB)' }, color: { field: 'link', type: 'nominal' } } },
        { width: 360, height: 90, mark: { type: 'area', interpolate: 'step-before', opacity: 0.6, tooltip: true },
          encoding: { x: { field: 't_us', type: 'quantitative', title: 'time (us)' }, y: { field: 'paused_pct', type: 'quantitative', title: 'paused / stalled (%)', stack: null, scale: { domain: [0, 100] } }, color: { field: 'link', type: 'nominal' } } },
      ] };
    };
    chart(parent, caption, { hconcat: ok.map(panel), resolve: { scale: { color: 'independent' } } });
  }

  // Counters evaluated by fabsim from lab.yaml's chart metrics.
  function countersRows(parent, scns, caption, rowsIn, log) {
    const byId = Object.fromEntries(scns.map((s) => [s.id, s]));
    const names = [...new Set(rowsIn.map((r) => r.metric))];
    const metrics = names.map((n) => [(r) => { const x = rowsIn.find((q) => q.metric === n && q.id === r.__id); return x ? x.value : 0; }, n]);
    const wrapped = scns.map((s) => (ran(s) ? Object.assign({}, s, { results: Object.assign({ __id: s.id }, s.results) }) : s));
    void byId;
    countersChart(parent, wrapped, metrics, caption, log);
  }

  const CHARTS = {
    counters: (sec, scns, c) => countersRows(sec, scns, c.title, c.rows || [], !!c.opts.log),
    timelines: (sec, scns, c) => timelines(sec, scns, c.title),
    timelines_pair: (sec, scns, c) => timelinesPair(sec, scns, c.title),
    throughput: (sec, scns, c) => throughput(sec, scns, c.title, true),
    busbw: (sec, scns, c) => busbwChart(sec, scns, c.title),
    busbw_ranks: (sec, scns, c) => busbwChart(sec, scns, c.title, true),
    jobs: (sec, scns, c) => jobsChart(sec, scns, c.title),
    spine_time: (sec, scns, c) => spineTime(sec, scns, c.title),
    spine_bytes: (sec, scns, c) => spineHeatmap(sec, scns, c.title),
    offered_load: (sec, scns, c) => offeredLoad(sec, scns, c.title),
    balls_into_bins: (sec, scns, c) => ballsIntoBins(sec, scns, c.title),
    topology_load: (sec, scns, c) => { const s = scns.find(ran); if (!s) return notYet(sec, c.title, scns); for (const r of scns.filter(ran)) topologyChart(sec, r, `${c.title}: “${r.label}”`, true); },
    deadlock: (sec, scns, c) => {
      const dead = scns.filter((s) => ran(s) && s.results.summary.deadlock.detected);
      if (dead.length) for (const s of dead) topologyChart(sec, s, `${c.title}: “${s.label}” (ports in the wait-for cycle in red)`);
      else notYet(sec, c.title, scns.filter((s) => !ran(s)).length ? scns : []);
    },
    fct: (sec, scns, c) => fctChart(sec, scns, c.title, c.opts.dst, !!c.opts.log),
    dcqcn_rate: (sec, scns, c) => dcqcnRate(sec, scns, c.title),
    moe: (sec, scns, c) => moeChart(sec, scns, c.title),
    inference: (sec, scns, c) => inferenceChart(sec, scns, c.title),
    bom: (sec, scns) => bom(sec, scns),
  };
  function fromLab(sec, lab) {
    for (const c of lab.charts) {
      const scns = c.runs.map((id) => lab.scenarios.find((s) => s.id === id)).filter(Boolean);
      kind = c.type;
      (CHARTS[c.type] || (() => sec.append(el('div', { class: 'na-box' }, `unknown chart type ${c.type}`))))(sec, scns, c);
    }
  }
  const DROPS = [[(r) => r.summary.packets_dropped, 'drops'], [(r) => r.summary.retransmitted_packets, 'retransmissions'],
    [(r) => r.summary.pause_frames, 'pause frames'], [(r) => maxOf(r.links, (l) => l.credit_stall_ns || 0) / 1000, 'credit stall, busiest link (us)']];
  function generic(sec, scns) {
    if (DATA.mode === 'sweep') { kind = 'sweep'; sweepChart(sec, scns, 'Each metric against the swept parameter'); kind = 'generic'; }
    countersChart(sec, scns, [[(r) => doneUs(r) || 0, 'done (us)'], ...DROPS], 'Summary per run');
    throughput(sec, scns, 'Delivered throughput over time', true);
    timelines(sec, scns, 'Queues and pauses at the busiest links');
    if (scns.filter((s) => ran(s) && s.series && s.series.links.length).length === 2) timelinesPair(sec, scns, 'Queues and pauses, side by side');
    if (scns.some((s) => ran(s) && (s.results.collectives || []).length)) busbwChart(sec, scns, 'Collectives: busbw vs size');
    if (scns.some((s) => ran(s) && s.results.against)) againstChart(sec, scns, 'busbw: fabsim beside the measured nccl-tests log');
    if (scns.some((s) => ran(s) && (s.results.moe || []).length)) moeChart(sec, scns, 'Mixture of experts: dispatch and combine all-to-all per layer');
    if (scns.some((s) => ran(s) && (s.results.inference || []).length)) inferenceChart(sec, scns, 'Inference: time to first token per request (queue, prefill, KV-cache transfer)');
    if (scns.some((s) => ran(s) && s.results.links.some((l) => l.tier === 'leaf-spine'))) {
      spineTime(sec, scns, 'Spine-link utilisation over time');
      offeredLoad(sec, scns, 'Offered load per spine link');
    }
  }

  // A sweep's metrics against the swept parameter: one panel per metric, x =
  // the first key that varies (in the sweep's order), one line per value of
  // the second (if any); status.json's "set" gives each run's values.
  function sweepChart(parent, scns, caption) {
    const ok = scns.filter((s) => ran(s) && s.set);
    if (!ok.length) return notYet(parent, caption, scns);
    const keys = [...new Set(ok.flatMap((s) => Object.keys(s.set)))];
    const varying = keys.filter((k) => new Set(ok.map((s) => s.set[k])).size > 1);
    if (!varying.length) return parent.append(el('div', { class: 'note' }, caption + ': one value of every key, nothing to plot.'));
    const [xk, ck] = varying;
    const order = [...new Set(ok.map((s) => s.set[xk]))];
    const metrics = [[(r) => doneUs(r), 'done (us)'], ...DROPS];
    let rows = [];
    for (const s of ok) for (const [f, name] of metrics) {
      const v = f(s.results);
      rows.push({ x: s.set[xk], series: ck ? `${ck}=${s.set[ck]}` : 'all runs', metric: name, value: v == null ? null : +v, run: s.label });
    }
    const zero = metrics.map((m) => m[1]).filter((n) => rows.every((r) => r.metric !== n || !r.value));
    rows = rows.filter((r) => !zero.includes(r.metric) && r.value != null);
    if (zero.length) caption += ` (zero in every run: ${zero.join(', ')})`;
    if (varying.length > 2) caption += ` (also varied, not on the axes: ${varying.slice(2).join(', ')})`;
    // A swept key without an order (fabric.kind=infiniband,roce,uet): bars, not a line between categories.
    const categorical = order.some((v) => Number.isNaN(parseFloat(String(v))));
    chart(parent, caption, {
      data: { values: rows },
      facet: { column: { field: 'metric', type: 'nominal', title: null, sort: metrics.map((m) => m[1]) } },
      resolve: { scale: { y: 'independent' } },
      spec: {
        width: 200, height: 160,
        mark: categorical ? { type: 'bar', tooltip: true } : { type: 'line', point: true, tooltip: true },
        encoding: {
          x: { field: 'x', type: categorical ? 'nominal' : 'ordinal', sort: order, title: xk, axis: { labelAngle: 0 } },
          y: { field: 'value', type: 'quantitative', title: null },
          color: { field: 'series', type: 'nominal', title: ck || null, sort: null },
          ...(categorical ? (ck ? { xOffset: { field: 'series', sort: null } } : {}) : { detail: { field: 'series' } }),
        },
      },
    });
  }

  // ---- Validation page (docs/validation.md; `make validate` writes the rows) ----
  function validationPage(main) {
    const v = DATA.validation;
    if (!v || !Array.isArray(v.rows) || !v.rows.length) return;
    const num = (x) => (x == null ? '–' : Math.abs(x) >= 1000 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(3));
    const sec = el('section', { id: 'validation' });
    // Predictions against measurements are what tests the model; a failing one
    // is counted and shown red, never excluded (docs/validation.md, kinds).
    const pred = v.rows.filter((r) => r.kind === 'prediction');
    const kinds = {};
    for (const r of v.rows) kinds[r.kind || 'unclassified'] = (kinds[r.kind || 'unclassified'] || 0) + 1;
    const others = Object.entries(kinds).filter(([k]) => k !== 'prediction').map(([k, n]) => `${n} ${k}`).join(', ');
    sec.append(el('h2', {}, 'Validation against published measurements'));
    sec.append(el('p', {}, `${pred.length} predictions against measurements: ${pred.filter((r) => r.verdict.startsWith('pass')).length} pass. Besides them (${v.rows.length} rows, docs/validation.md): ${others}. Identities check the code, fitted rows guard a calibration; neither predicts.`));
    const t = el('table', {});
    t.append(el('tr', {}, ...['row', 'kind', 'what', 'published', 'fabsim', 'ratio', 'accept', 'verdict', 'source', 'status'].map((h) => el('th', {}, h))));
    for (const r of v.rows) {
      const ok = r.verdict.startsWith('pass') || r.verdict === 'recorded';
      t.append(el('tr', {}, el('td', {}, r.id), el('td', {}, r.kind_text || r.kind || ''), el('td', {}, r.what), el('td', {}, num(r.published)), el('td', {}, num(r.fabsim)),
        el('td', {}, r.ratio == null ? '–' : num(r.ratio)), el('td', {}, r.accept ? `[${num(r.accept[0])}, ${num(r.accept[1])}]` : '–'),
        el('td', {}, el('span', { class: 'badge ' + (ok ? 'ok' : 'err') }, r.verdict)), el('td', { class: 'l' }, r.source), el('td', { class: 'l' }, r.status)));
    }
    sec.append(t);
    main.append(sec);
  }

  // ---- page ----------------------------------------------------------------------
  // Charts key on labels: make them unique within a lab.
  for (const lab of DATA.labs) {
    const seen = {};
    for (const s of lab.scenarios) seen[s.label] = (seen[s.label] || 0) + 1;
    for (const s of lab.scenarios) if (seen[s.label] > 1) s.label += ` (${s.id})`;
  }
  const all = DATA.labs.flatMap((l) => l.scenarios);
  const nRan = all.filter(ran).length, nNa = all.filter((s) => s.status === 'not_available').length, nErr = all.length - nRan - nNa;
  const title = DATA.title || (DATA.mode === 'compare' ? 'fabsim compare' : DATA.mode === 'sweep' ? 'fabsim sweep' : DATA.mode === 'run' ? 'fabsim run' : 'fabsim course labs: InfiniBand vs RoCEv2 vs Ultra Ethernet');
  const nNotRun = all.filter((s) => s.status === 'not_run').length;
  app.append(el('header', {}, el('h1', {}, title),
    el('div', { class: 'sub' }, `fabsim ${DATA.fabsim} · ${all.length} scenarios: ${nRan} ran, ${nNa} not yet available${nNotRun ? ', ' + nNotRun + ' not run' : ''}${nErr - nNotRun ? ', ' + (nErr - nNotRun) + ' failed' : ''}${(DATA.sets || []).length ? ' · with --set ' + DATA.sets.join(' --set ') : ''} · every number below comes from these runs`)));
  const main = el('main', {});
  app.append(main);
  if (DATA.labs.length > 1) {
    const toc = el('nav', { class: 'toc' });
    for (const lab of DATA.labs) toc.append(el('a', { href: '#lab-' + lab.id }, lab.title));
    main.append(toc);
  }
  const verdictClass = (v) => (v === 'holds' ? 'ok' : v === 'holds with a nuance' ? 'nu' : v === 'does not hold here' ? 'err' : 'na');
  const subClass = (v) => (v === 'holds under conditions' ? 'nu' : verdictClass(v));
  if (DATA.labs.some((l) => l.verdict)) {
    main.append(el('h2', { id: 'verdicts' }, 'The course’s claims, tested'));
    const t = el('table', { class: 'verdicts' });
    t.append(el('tr', {}, el('th', { class: 'l' }, 'lab'), el('th', { class: 'l' }, 'claim'), el('th', { class: 'l' }, 'verdict')));
    for (const lab of DATA.labs.filter((l) => l.verdict))
      t.append(el('tr', {}, el('td', { class: 'l' }, el('a', { href: '#lab-' + lab.id }, lab.title)), el('td', { class: 'l claim' }, '“' + lab.claim + '”'),
        el('td', { class: 'l' }, el('span', { class: 'badge ' + verdictClass(lab.verdict) }, lab.verdict),
          // the sub-claims it is derived from, one badge each
          ...(lab.claims || []).map((c) => el('div', { class: 'sub-verdict' }, el('span', { class: 'badge ' + subClass(c.verdict), title: c.claim }, c.id + ': ' + c.verdict),
            // a verdict another reading of an unsourced default changes (lab.yaml readings:)
            (c.depends_on || []).length ? el('span', { class: 'depends', title: 'another verdict under: ' + c.depends_on.join(', ') }, ' depends on ' + c.depends_on.join(', ')) : null)))));
    main.append(t);
  }
  for (const lab of DATA.labs) {
    const sec = el('section', { id: 'lab-' + lab.id });
    sec.append(el('h2', {}, lab.title));
    if (lab.verdict) {
      sec.append(el('blockquote', { class: 'claim' }, '“' + lab.claim + '”', lab.claim_source ? el('div', { class: 'src' }, '— ' + lab.claim_source) : null));
      if ((lab.claims || []).length) {
        /* Sub-claims, each with its own verdict; the lab's is derived from them. */
        sec.append(el('p', { class: 'verdict' }, el('span', { class: 'badge ' + verdictClass(lab.verdict) }, lab.verdict),
          `derived from its ${lab.claims.length} claims:`));
        const ct = el('table', { class: 'claims' });
        const rd = lab.readings || [];
        ct.append(el('tr', {}, el('th', { class: 'l' }, 'claim'), el('th', { class: 'l' }, 'verdict'), el('th', { class: 'l' }, 'what the runs say'),
          rd.length ? el('th', { class: 'l' }, 'under the readings') : null));
        /* Readings: the lab again under other values of a default no source
           settles; a claim they change "depends on the reading". */
        const under = (c) => {
          const other = rd.map((r) => ({ r, v: (r.claims.find((x) => x.id === c.id) || {}).verdict })).filter((o) => o.v && o.v !== c.verdict);
          if (!other.length) return `the same under every reading (${rd.length})`;
          return el('span', {}, 'depends on the reading: ', ...other.map((o, i) => el('span', {}, i ? '; ' : '', el('code', { title: o.r.why }, o.r.set.join(', ')), ': ',
            el('span', { class: 'badge ' + subClass(o.v) }, o.v))));
        };
        for (const c of lab.claims)
          ct.append(el('tr', {}, el('td', { class: 'l claim' }, c.claim), el('td', { class: 'l' }, el('span', { class: 'badge ' + subClass(c.verdict) }, c.verdict)),
            el('td', { class: 'l' }, c.text), rd.length ? el('td', { class: 'l' }, under(c)) : null));
        sec.append(ct);
        if (rd.length) {
          const ul = el('ul', { class: 'readings' });
          for (const r of rd) ul.append(el('li', {}, el('strong', {}, r.id + ' '), el('code', {}, r.set.join(', ')), ': ' + r.why));
          sec.append(el('p', {}, 'Readings (the lab re-run under each; docs/labs/README.md):'), ul);
        }
      } else
        sec.append(el('p', { class: 'verdict' }, el('span', { class: 'badge ' + verdictClass(lab.verdict) }, lab.verdict), lab.verdict_text));
      sec.append(el('h3', {}, 'Evidence'));
      const ul = el('ul', { class: 'findings' });
      for (const f of lab.findings) ul.append(el('li', { class: f.available ? '' : 'na' }, el('strong', {}, f.title + ': '), f.text));
      sec.append(ul);
    }
    if (lab.markdown) sec.append(el('div', { class: 'md', html: markdown(lab.markdown, true) }));
    if (lab.next) sec.append(el('p', {}, el('strong', {}, 'Try next: '), el('code', {}, lab.next)));
    if (DATA.mode === 'compare' && (DATA.config_diff || []).length) {
      sec.append(el('h3', {}, 'What differs between the variants (resolved configuration)'));
      const t = el('table', {});
      t.append(el('tr', {}, el('th', { class: 'l' }, 'key'), ...lab.scenarios.map((s) => el('th', { class: 'l' }, s.label))));
      /* settings that differ first; keys only some variants have (one fabric's, one kind's) apart */
      const row = (d) => el('tr', {}, el('td', { class: 'l' }, el('code', {}, d.key)), ...d.values.map((v) => el('td', { class: 'l' }, v == null ? '(absent)' : v)));
      const differ = DATA.config_diff.filter((d) => !d.some_variants_only), some = DATA.config_diff.filter((d) => d.some_variants_only);
      for (const d of differ) t.append(row(d));
      sec.append(t);
      if (some.length) {
        const det = el('details', {}, el('summary', {}, `${some.length} key(s) that only some variants have (one fabric's or one kind's)`));
        const t2 = el('table', {});
        for (const d of some) t2.append(row(d));
        det.append(t2);
        sec.append(det);
      }
    }
    sec.append(el('h3', {}, 'Runs'));
    sec.append(DATA.mode === 'compare' ? compareTable(lab.scenarios) : summaryTable(lab.scenarios));
    sec.append(el('h3', {}, 'Charts'));
    try {
      if (lab.charts && lab.charts.length) fromLab(sec, lab);
      else generic(sec, lab.scenarios);
      kind = 'generic';
    } catch (e) {
      state.errors.push(lab.id + ': ' + e);
      sec.append(el('div', { class: 'na-box' }, 'charts failed: ' + e));
    }
    const det = el('details', {}, el('summary', {}, 'Scenario files'));
    for (const s of lab.scenarios) det.append(el('h4', {}, s.label + ' (' + s.id + ')'), el('pre', { class: 'yaml' }, s.yaml || ''));
    sec.append(det);
    main.append(sec);
  }
  validationPage(main);
  Promise.allSettled(pending).then(() => { state.done = true; document.body.setAttribute('data-charts-done', String(state.rendered)); });
})();
