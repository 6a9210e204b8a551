/**
 * A sweep's `sweep.html`: one self-contained page (no network: data, styles and script inlined, and a
 * Content-Security-Policy that forbids fetching anything, as report.html) with a heatmap of a metric
 * over two swept params, chosen with selectors (and the metric too), and the ranking table.
 *
 * A heatmap cell holds every run with those two values (the other params, feeds and seeds vary): it
 * shows the best of them by the metric, and says how many there are. Colours go from the worst cell
 * to the best; they are for display only (the figures are the results' own decimal strings).
 *
 * Why one file of this size: most of it is the page itself (its HTML, styles and script, a template).
 */
import { escapeHtml, jsonForScript } from '../backtest/report-html.ts';
import { SWEEP_METRICS } from './sweep-metrics.ts';
import type { SweepResults } from './sweep-results.ts';

const STYLE = `
:root { color-scheme: light; --fg: #131722; --muted: #5d606b; --line: #e0e3eb; }
body { margin: 0; padding: 16px 24px 32px; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; color: var(--fg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 20px 0 6px; }
.note { color: var(--muted); margin: 0 0 8px; font-size: 12px; }
label { margin-right: 16px; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { font-weight: 600; }
td.text, th.text { text-align: left; }
table.heatmap td { min-width: 72px; text-align: center; border: 1px solid #fff; }
tr.failed td { color: #b22; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; }
`;

/**
 * The page's script: reads `sweep-data`, fills the selectors and draws the heatmap of the chosen
 * params and metric; `window.__sweepReady` holds the cells drawn (for a browser test).
 */
const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('sweep-data').textContent);
  var pick = { x: document.getElementById('param-x'), y: document.getElementById('param-y'), metric: document.getElementById('metric') };
  function option(select, value, label) { var o = document.createElement('option'); o.value = value; o.textContent = label; select.appendChild(o); }
  data.params.forEach(function (p) { option(pick.x, p.name, p.name); option(pick.y, p.name, p.name); });
  option(pick.y, '', '(none)');
  data.metrics.forEach(function (m) { option(pick.metric, m.name, m.name + ' (' + m.better + ' is better)'); });
  pick.x.value = data.params[0] ? data.params[0].name : '';
  pick.y.value = data.params[1] ? data.params[1].name : '';
  pick.metric.value = data.metric;
  function draw() {
    var x = data.params.filter(function (p) { return p.name === pick.x.value; })[0];
    var y = data.params.filter(function (p) { return p.name === pick.y.value; })[0];
    var metric = data.metrics.filter(function (m) { return m.name === pick.metric.value; })[0];
    var table = document.getElementById('heatmap');
    table.textContent = '';
    if (!x) return;
    var ys = y ? y.values : [''];
    var cells = {};
    data.runs.forEach(function (run) {
      var v = run.metrics[metric.name];
      if (run.status !== 'ok' || v === null) return;
      var key = run.params[x.name] + '\u0000' + (y ? run.params[y.name] : '');
      var n = Number(v);
      var cell = cells[key] || (cells[key] = { runs: 0, best: null });
      cell.runs += 1;
      if (cell.best === null || (metric.better === 'higher' ? n > cell.best.n : n < cell.best.n)) cell.best = { n: n, text: String(v), hash: run.hash };
    });
    var values = Object.keys(cells).map(function (k) { return cells[k].best.n; });
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var head = table.insertRow();
    var corner = document.createElement('th'); corner.className = 'text'; corner.textContent = (y ? y.name + ' \u2193 ' : '') + x.name + ' \u2192'; head.appendChild(corner);
    x.values.forEach(function (xv) { var th = document.createElement('th'); th.textContent = xv; head.appendChild(th); });
    var drawn = [];
    ys.forEach(function (yv) {
      var tr = table.insertRow();
      var th = document.createElement('th'); th.className = 'text'; th.textContent = yv; tr.appendChild(th);
      x.values.forEach(function (xv) {
        var td = tr.insertCell();
        var cell = cells[xv + '\u0000' + yv];
        if (!cell) { td.textContent = '\u2013'; return; }
        var t = hi === lo ? 1 : (cell.best.n - lo) / (hi - lo);
        if (metric.better === 'lower') t = 1 - t;
        td.style.background = 'hsl(' + Math.round(t * 120) + ', 70%, 80%)';
        td.textContent = cell.best.text;
        td.title = 'best of ' + cell.runs + ' run' + (cell.runs === 1 ? '' : 's') + ': ' + cell.best.hash;
        drawn.push({ x: xv, y: yv, value: cell.best.text, runs: cell.runs });
      });
    });
    window.__sweepReady = { x: x.name, y: y ? y.name : null, metric: metric.name, cells: drawn };
  }
  [pick.x, pick.y, pick.metric].forEach(function (s) { s.addEventListener('change', draw); });
  draw();
})();
`;

/** The ranking table: every run, the chosen metric first among the metrics. */
function rankingTable(results: SweepResults): string {
  const metrics = [results.metric.name, ...SWEEP_METRICS.map((metric) => metric.name).filter((name) => name !== results.metric.name)];
  const head = ['rank', ...results.params.map((param) => param.name), 'feed', 'seed', 'status', ...metrics, 'run'];
  const rows = results.runs.map((run) => {
    const cells = [
      `<td>${run.rank ?? ''}</td>`,
      ...results.params.map((param) => `<td>${escapeHtml(run.params[param.name] ?? '')}</td>`),
      `<td class="text">${escapeHtml(run.feed)}</td>`,
      `<td>${run.seed}</td>`,
      `<td class="text">${run.error === null ? 'ok' : escapeHtml(`failed ${run.error.code ?? ''}: ${run.error.message.split('\n')[0]}`)}</td>`,
      ...metrics.map((name) => `<td>${escapeHtml(String(run.metrics[name] ?? ''))}</td>`),
      `<td class="text"><a href="runs/${escapeHtml(run.hash)}/summary.json"><code>${escapeHtml(run.hash)}</code></a></td>`,
    ];
    return `<tr${run.status === 'failed' ? ' class="failed"' : ''}>${cells.join('')}</tr>`;
  });
  const text = new Set(['feed', 'status', 'run']);
  const header = head.map((name) => `<th${text.has(name) ? ' class="text"' : ''}>${escapeHtml(name)}</th>`);
  return `<table id="ranking"><thead><tr>${header.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The whole `sweep.html` document. */
export function renderSweepReport(results: SweepResults): string {
  const title = escapeHtml(`sweep of ${results.runFile.path}: ${results.runs.length} runs, ranked by ${results.metric.name}`);
  const data = {
    metric: results.metric.name,
    metrics: SWEEP_METRICS.map((metric) => ({ name: metric.name, better: metric.better })),
    params: results.params,
    runs: results.runs.map((run) => ({ hash: run.hash, params: run.params, feed: run.feed, seed: run.seed, status: run.status, metrics: run.metrics })),
  };
  const heatmap =
    results.params.length === 0
      ? '<p class="note">No param was swept: nothing to map.</p>'
      : `<p><label>across <select id="param-x"></select></label><label>down <select id="param-y"></select></label><label>metric <select id="metric"></select></label></p>
<p class="note">Each cell shows the best run with those two values (other params, feeds and seeds vary; hover for how many and which run). Green is better, red worse; failed runs are left out.</p>
<table class="heatmap" id="heatmap"></table>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${title}</h1>
<p class="note">Feeds: ${escapeHtml(results.feeds.map((feed) => feed.path).join(', '))}; seeds: ${escapeHtml(results.seeds.join(', '))}; clobbot ${escapeHtml(String(results.code.version))} ${escapeHtml(String(results.code.commit ?? ''))}.</p>
<h2>Heatmap</h2>
${heatmap}
<h2>Ranking</h2>
${rankingTable(results)}
<script type="application/json" id="sweep-data">${jsonForScript(data)}</script>
${results.params.length === 0 ? '' : `<script>${PAGE_SCRIPT}</script>`}
</body>
</html>
`;
}
