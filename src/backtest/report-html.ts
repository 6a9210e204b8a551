/**
 * A backtest's `report.html`: one self-contained page (no network: the chart library, the data and
 * the styles are all inlined, and a Content-Security-Policy forbids fetching anything) with three
 * charts drawn by TradingView's lightweight-charts (Apache-2.0, attribution in the page footer):
 * the market's mid with the strategy's own best bid/ask as step lines and its fills as markers;
 * equity; inventory. Below them the summary and the manifest as key/value tables.
 *
 * Display rules (also stated on the page):
 * - times are whole UTC seconds (lightweight-charts' `UTCTimestamp`); a series needs strictly
 *   increasing times, so points are ordered by time and, of several points in the same second, the
 *   last one is kept (the state at the end of that second). Fills keep their own second and are
 *   drawn at their price, on the nearest time of the price chart.
 * - a point whose value is not finite (NaN) is a gap: for the own quotes, "no order on that side".
 * - a series longer than {@link MAX_POINTS_PER_SERIES} points is downsampled: its first and last
 *   points are kept and the rest is cut into equal-count buckets, each giving its lowest and highest
 *   point in time order, so spikes survive (gaps: see {@link downsampleMinMax}). More fills than
 *   that are thinned to an evenly spaced subset.
 *
 * The page sets `window.__reportReady = { charts, points: { mid, bestBid, bestAsk, fills, equity,
 * inventory } }` once the charts hold their data and have painted, so a browser test can wait for
 * it: the counts are read back from the series (`series.data()`, which holds values, not gaps) and
 * from the fill markers.
 *
 * Why one file of this size: most of it is the page itself (its HTML, styles and script, a template),
 * and the data preparation that its script relies on; split, they would have to be read together.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One value of a curve at a time: display values only. A non-finite value marks a gap. */
export interface ReportSeriesPoint {
  readonly atMs: number;
  readonly value: number;
}

export interface ReportFill {
  readonly atMs: number;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  readonly size: string;
  readonly liquidity: 'maker' | 'taker';
}

export interface BacktestReportInput {
  /** E.g. "mm on BTCUSDT, 2024-08-08 23:54 .. 00:05". */
  readonly title: string;
  /** Rows of the summary table, already formatted. */
  readonly summary: readonly (readonly [string, string])[];
  /** Printed as nested key/value tables (other JSON values pretty-printed). */
  readonly manifest: Readonly<Record<string, unknown>>;
  /** The market's mid. */
  readonly mid: readonly ReportSeriesPoint[];
  /** The strategy's own best bid over time (NaN: no bid). */
  readonly bestBid: readonly ReportSeriesPoint[];
  /** The strategy's own best ask over time (NaN: no ask). */
  readonly bestAsk: readonly ReportSeriesPoint[];
  readonly fills: readonly ReportFill[];
  readonly equity: readonly ReportSeriesPoint[];
  readonly inventory: readonly ReportSeriesPoint[];
}

/** The most points a series (or fills) gets on the page. */
export const MAX_POINTS_PER_SERIES = 5_000;

/** A chart point as lightweight-charts takes it: UTC seconds; no `value` is a gap (whitespace data). */
export interface ChartPoint {
  readonly time: number;
  readonly value?: number;
}

export interface ChartFill {
  readonly time: number;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  readonly size: string;
  readonly liquidity: 'maker' | 'taker';
}

export const SERIES_NAMES = ['mid', 'bestBid', 'bestAsk', 'equity', 'inventory'] as const;
export type SeriesName = (typeof SERIES_NAMES)[number];

/** What the page's `report-data` script holds. */
export interface ReportData {
  readonly title: string;
  readonly maxPoints: number;
  readonly series: Readonly<Record<SeriesName, readonly ChartPoint[]>>;
  readonly fills: readonly ChartFill[];
  /** For each series and the fills: how many came in and how many are drawn. */
  readonly counts: Readonly<Record<SeriesName | 'fills', { readonly input: number; readonly shown: number }>>;
}

const toSecond = (atMs: number) => Math.floor(atMs / 1000);

/** Ordered by time (stable), one point per UTC second (the last), points without a finite time dropped. */
export function toSecondSeries(points: readonly ReportSeriesPoint[]): ChartPoint[] {
  const sorted = points.filter((point) => Number.isFinite(point.atMs)).sort((a, b) => a.atMs - b.atMs);
  const out: ChartPoint[] = [];
  for (const point of sorted) {
    const chartPoint: ChartPoint = Number.isFinite(point.value) ? { time: toSecond(point.atMs), value: point.value } : { time: toSecond(point.atMs) };
    if (out.length > 0 && out[out.length - 1]!.time === chartPoint.time) out[out.length - 1] = chartPoint;
    else out.push(chartPoint);
  }
  return out;
}

/**
 * At most `max` (≥ 8) of `points`: the first and the last, and per equal-count bucket of the rest its
 * lowest and highest point, in time order. Gaps: a run of gap points draws as its first one, so runs
 * are cut to that; when at most a quarter of the budget, every gap is kept, otherwise each bucket
 * keeps its first gap.
 */
export function downsampleMinMax(points: readonly ChartPoint[], max = MAX_POINTS_PER_SERIES): ChartPoint[] {
  if (points.length <= max) return [...points];
  if (max < 8) throw new RangeError(`downsampleMinMax: max ${max} is below 8`);
  const isGap = (point: ChartPoint | undefined) => point !== undefined && point.value === undefined;
  const compact = points.filter((point, index) => !isGap(point) || !isGap(points[index - 1]) || index === points.length - 1);
  if (compact.length <= max) return compact;
  const inner = compact.length - 2;
  let gaps = 0;
  for (let index = 1; index <= inner; index += 1) if (isGap(compact[index])) gaps += 1;
  const keepAllGaps = gaps <= max / 4;
  const buckets = keepAllGaps ? Math.floor((max - 2 - gaps) / 2) : Math.floor((max - 2) / 3);
  const out: ChartPoint[] = [compact[0]!];
  for (let bucket = 0; bucket < buckets; bucket += 1) {
    const start = 1 + Math.floor((bucket * inner) / buckets);
    const end = 1 + Math.floor(((bucket + 1) * inner) / buckets);
    let low = -1;
    let high = -1;
    const keep: number[] = [];
    for (let index = start; index < end; index += 1) {
      const value = compact[index]!.value;
      if (value === undefined) {
        if (keepAllGaps || !keep.some((kept) => compact[kept]!.value === undefined)) keep.push(index);
        continue;
      }
      if (low < 0 || value < compact[low]!.value!) low = index;
      if (high < 0 || value > compact[high]!.value!) high = index;
    }
    if (low >= 0) keep.push(low);
    if (high >= 0 && high !== low) keep.push(high);
    keep.sort((a, b) => a - b);
    for (const index of keep) out.push(compact[index]!);
  }
  out.push(compact[compact.length - 1]!);
  return out;
}

/** At most `max` fills, ordered by time (stable), evenly spaced when thinned. */
export function thinFills(fills: readonly ReportFill[], max = MAX_POINTS_PER_SERIES): ChartFill[] {
  const sorted = fills.filter((fill) => Number.isFinite(fill.atMs) && Number.isFinite(fill.price)).sort((a, b) => a.atMs - b.atMs);
  const picked = sorted.length <= max ? sorted : Array.from({ length: max }, (_, k) => sorted[Math.floor((k * sorted.length) / max)]!);
  return picked.map((fill) => ({ time: toSecond(fill.atMs), side: fill.side, price: fill.price, size: fill.size, liquidity: fill.liquidity }));
}

/** The charts' data as the page gets it, after the display rules above. */
export function prepareReportData(input: BacktestReportInput): ReportData {
  const series = {} as Record<SeriesName, ChartPoint[]>;
  const counts = {} as Record<SeriesName | 'fills', { input: number; shown: number }>;
  for (const name of SERIES_NAMES) {
    series[name] = downsampleMinMax(toSecondSeries(input[name]));
    counts[name] = { input: input[name].length, shown: series[name].length };
  }
  const fills = thinFills(input.fills);
  counts.fills = { input: input.fills.length, shown: fills.length };
  return { title: input.title, maxPoints: MAX_POINTS_PER_SERIES, series, fills, counts };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** JSON that can sit inside a `<script>` element: no `<`, `>` or `&` in it (escaped as \u003c …), which JSON.parse reads back unchanged. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const LIBRARY_FILE = 'dist/lightweight-charts.standalone.production.js';
let libraryCache: { readonly source: string; readonly version: string } | undefined;

/** lightweight-charts' standalone bundle (it defines `window.LightweightCharts`), read once. */
export function lightweightChartsBundle(): { readonly source: string; readonly version: string } {
  if (libraryCache !== undefined) return libraryCache;
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('lightweight-charts/package.json');
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  const source = readFileSync(join(dirname(packageJson), LIBRARY_FILE), 'utf8');
  // The bundle goes verbatim into a <script> element: nothing in it may close or confuse that element.
  if (/<\/script|<!--/i.test(source)) throw new Error(`lightweight-charts ${version}: ${LIBRARY_FILE} contains "</script" or "<!--" and cannot be inlined`);
  libraryCache = { source, version };
  return libraryCache;
}

function jsonText(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner), 2);
  return text ?? String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A key/value table; plain-object values nest, other values are printed as (pretty) JSON. */
function manifestTable(record: Readonly<Record<string, unknown>>, depth = 0): string {
  const rows = Object.entries(record).map(([key, value]) => {
    let cell: string;
    if (isPlainObject(value) && Object.keys(value).length > 0 && depth < 8) cell = manifestTable(value, depth + 1);
    else {
      const text = jsonText(value);
      cell = text.includes('\n') ? `<pre>${escapeHtml(text)}</pre>` : `<code>${escapeHtml(text)}</code>`;
    }
    return `<tr><th scope="row">${escapeHtml(key)}</th><td>${cell}</td></tr>`;
  });
  return `<table class="kv">${rows.join('')}</table>`;
}

function summaryTable(rows: readonly (readonly [string, string])[]): string {
  return `<table class="kv">${rows.map(([key, value]) => `<tr><th scope="row">${escapeHtml(key)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`;
}

const number = (n: number) => n.toLocaleString('en-US');

function displayNote(data: ReportData): string {
  const reduced = [...SERIES_NAMES, 'fills' as const]
    .filter((name) => data.counts[name].shown < data.counts[name].input)
    .map((name) => `${name} ${number(data.counts[name].input)} → ${number(data.counts[name].shown)}`);
  const thinned =
    reduced.length === 0
      ? 'No series needed downsampling.'
      : `Downsampled for display: ${escapeHtml(reduced.join(', '))} (points are per second first; each series keeps its first and last point and, per bucket, its lowest and highest value, so spikes survive; fills are an evenly spaced subset).`;
  return (
    `Times are UTC, in whole seconds: of several values in one second the last is shown. ` +
    `Each series is drawn with at most ${number(data.maxPoints)} points. ${thinned}`
  );
}

const STYLE = `
:root { color-scheme: light; --fg: #131722; --muted: #5d606b; --line: #e0e3eb; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 32px; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; color: var(--fg); background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 20px 0 6px; }
.note { color: var(--muted); margin: 0 0 8px; font-size: 12px; }
.chart { position: relative; width: 100%; height: 240px; border: 1px solid var(--line); }
.chart.tall { height: 420px; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; font-size: 12px; color: var(--muted); margin-top: 4px; }
.legend span:not(.plain)::before { content: ""; display: inline-block; width: 14px; height: 3px; margin-right: 5px; vertical-align: middle; background: var(--c); }
#tooltip { position: absolute; z-index: 5; pointer-events: none; display: none; background: rgba(255,255,255,0.95); border: 1px solid var(--line); padding: 6px 8px; font-size: 12px; white-space: pre; box-shadow: 0 1px 4px rgba(0,0,0,0.15); }
.tables { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 2fr); gap: 24px; }
@media (max-width: 900px) { .tables { grid-template-columns: minmax(0, 1fr); } }
table.kv { border-collapse: collapse; width: 100%; font-size: 13px; }
table.kv th, table.kv td { text-align: left; vertical-align: top; padding: 3px 8px; border-bottom: 1px solid var(--line); }
table.kv th { font-weight: 600; white-space: nowrap; width: 1%; }
table.kv table.kv { font-size: 12px; }
table.kv td > table.kv { margin: -3px -8px; width: calc(100% + 16px); }
pre, code { font: 12px/1.35 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; margin: 0; white-space: pre-wrap; word-break: break-word; }
footer { margin-top: 28px; padding-top: 8px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; }
footer a { color: #2962ff; }
`;

/**
 * The page's own script (runs after the library's). It reads `report-data`, draws the three charts,
 * reads back how many points each series holds and, two frames later (painted), sets `__reportReady`.
 */
const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var LWC = window.LightweightCharts;
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var COLORS = { mid: '#2962ff', bestBid: '#089981', bestAsk: '#f23645', equity: '#7e57c2', inventory: '#ef6c00', buy: '#089981', sell: '#f23645' };

  function makeChart(id) {
    return LWC.createChart(document.getElementById(id), {
      autoSize: true,
      layout: { background: { type: 'solid', color: '#ffffff' }, textColor: '#131722', attributionLogo: true },
      grid: { vertLines: { color: '#f0f3fa' }, horzLines: { color: '#f0f3fa' } },
      // A small minBarSpacing lets fitContent show all of a series' (up to 5,000) points at once.
      timeScale: { timeVisible: true, secondsVisible: true, minBarSpacing: 0.01 },
      rightPriceScale: { borderColor: '#e0e3eb' },
      crosshair: { mode: 0 },
    });
  }
  function line(chart, points, color, options) {
    var o = { color: color, lineWidth: 2, priceLineVisible: false };
    for (var k in options || {}) o[k] = options[k];
    var s = chart.addSeries(LWC.LineSeries, o);
    s.setData(points);
    return s;
  }

  // The fewest decimals (2 to 8) that show every value of the series (float noise aside).
  function formatOf(seriesList) {
    var decimals = 2;
    while (decimals < 8 && !seriesList.every(function (points) {
      return points.every(function (p) {
        if (p.value === undefined) return true;
        var scaled = p.value * Math.pow(10, decimals);
        return Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled));
      });
    })) decimals += 1;
    return { type: 'price', precision: decimals, minMove: Math.pow(10, -decimals) };
  }

  var charts = [];
  var price = makeChart('chart-price');
  charts.push(price);
  var priceFormat = formatOf([data.series.mid, data.series.bestBid, data.series.bestAsk]);
  var mid = line(price, data.series.mid, COLORS.mid, { lineWidth: 2, title: 'mid', priceFormat: priceFormat });
  var step = LWC.LineType ? LWC.LineType.WithSteps : 1;
  var bid = line(price, data.series.bestBid, COLORS.bestBid, { lineWidth: 1, lineType: step, title: 'own bid', priceFormat: priceFormat });
  var ask = line(price, data.series.bestAsk, COLORS.bestAsk, { lineWidth: 1, lineType: step, title: 'own ask', priceFormat: priceFormat });

  // Fills: at their price, on the nearest time the price chart has (markers snap to its times).
  var times = [];
  [data.series.mid, data.series.bestBid, data.series.bestAsk].forEach(function (points) {
    points.forEach(function (p) { times.push(p.time); });
  });
  times.sort(function (a, b) { return a - b; });
  var distinct = times.filter(function (t, i) { return i === 0 || t !== times[i - 1]; });
  function nearest(t) {
    if (distinct.length === 0) return t;
    var lo = 0, hi = distinct.length - 1;
    while (lo < hi) { var m = (lo + hi) >> 1; if (distinct[m] < t) lo = m + 1; else hi = m; }
    if (lo > 0 && t - distinct[lo - 1] <= distinct[lo] - t) lo -= 1;
    return distinct[lo];
  }
  var withText = data.fills.length <= 40;
  var fillsAt = {};
  var markers = data.fills.map(function (f) {
    var at = nearest(f.time);
    (fillsAt[at] = fillsAt[at] || []).push(f);
    var buy = f.side === 'BUY';
    var m = { time: at, position: 'atPriceMiddle', price: f.price, shape: buy ? 'arrowUp' : 'arrowDown', color: buy ? COLORS.buy : COLORS.sell, size: 1 };
    if (withText) m.text = (buy ? 'B ' : 'S ') + f.size;
    return m;
  });
  markers.sort(function (a, b) { return a.time - b.time; });
  var markerApi = LWC.createSeriesMarkers(mid, markers);

  var equityChart = makeChart('chart-equity');
  charts.push(equityChart);
  var equity = line(equityChart, data.series.equity, COLORS.equity, { title: 'equity' });
  var inventoryChart = makeChart('chart-inventory');
  charts.push(inventoryChart);
  var inventory = line(inventoryChart, data.series.inventory, COLORS.inventory, { lineType: step, title: 'inventory', priceFormat: formatOf([data.series.inventory]) });
  charts.forEach(function (c) { c.timeScale().fitContent(); });

  // Tooltip on the price chart: the values under the crosshair and the fills drawn at that time.
  var tooltip = document.getElementById('tooltip');
  // The value in force at time t: the last point at or before it (undefined in a gap or before the first).
  function valueAt(points, t) {
    var lo = 0, hi = points.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (points[m].time <= t) lo = m + 1; else hi = m; }
    return lo === 0 ? undefined : points[lo - 1].value;
  }
  function fmt(series, v) { return v === undefined ? '–' : series.priceFormatter().format(v); }
  price.subscribeCrosshairMove(function (param) {
    if (param.time === undefined || !param.point) { tooltip.style.display = 'none'; return; }
    var t = param.time;
    var lines = [new Date(t * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC'),
      'mid ' + fmt(mid, valueAt(data.series.mid, t)),
      'own bid ' + fmt(bid, valueAt(data.series.bestBid, t)),
      'own ask ' + fmt(ask, valueAt(data.series.bestAsk, t))];
    (fillsAt[t] || []).forEach(function (f) {
      lines.push((f.side === 'BUY' ? 'BUY ' : 'SELL ') + f.size + ' @ ' + f.price + ' (' + f.liquidity + ')');
    });
    tooltip.textContent = lines.join('\n');
    tooltip.style.display = 'block';
    var box = tooltip.parentElement.getBoundingClientRect();
    var x = param.point.x + 16, y = param.point.y + 16;
    if (x + tooltip.offsetWidth > box.width) x = param.point.x - tooltip.offsetWidth - 16;
    if (y + tooltip.offsetHeight > box.height) y = Math.max(0, param.point.y - tooltip.offsetHeight - 16);
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  });

  var points = {
    mid: mid.data().length, bestBid: bid.data().length, bestAsk: ask.data().length,
    fills: markerApi.markers().length, equity: equity.data().length, inventory: inventory.data().length,
  };
  requestAnimationFrame(function () {
    requestAnimationFrame(function () { window.__reportReady = { charts: charts.length, points: points }; });
  });
})();
`;

/** The whole `report.html` document. */
export function renderBacktestReport(input: BacktestReportInput): string {
  const data = prepareReportData(input);
  const library = lightweightChartsBundle();
  const title = escapeHtml(input.title);
  const legend = [
    ['mid', 'market mid'],
    ['bestBid', 'own best bid'],
    ['bestAsk', 'own best ask'],
  ]
    .map(([key, label]) => `<span style="--c: var(--${key})">${label}</span>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}:root { --mid: #2962ff; --bestBid: #089981; --bestAsk: #f23645; }</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p class="note" id="display-note">${displayNote(data)}</p>
</header>
<main>
<section>
<h2>Price, own quotes and fills</h2>
<div class="chart tall" id="chart-price"><div id="tooltip"></div></div>
<div class="legend">${legend}<span class="plain" style="color: #089981">▲ buy fill</span><span class="plain" style="color: #f23645">▼ sell fill</span><span class="plain">fills: ${number(data.counts.fills.shown)}${data.counts.fills.shown < data.counts.fills.input ? ` of ${number(data.counts.fills.input)}` : ''} (hover for size)</span></div>
</section>
<section>
<h2>Equity</h2>
<div class="chart" id="chart-equity"></div>
</section>
<section>
<h2>Inventory</h2>
<div class="chart" id="chart-inventory"></div>
</section>
<section class="tables">
<div>
<h2>Summary</h2>
${summaryTable(input.summary)}
</div>
<div>
<h2>Manifest</h2>
${manifestTable(input.manifest)}
</div>
</section>
</main>
<footer id="attribution">
Charts: TradingView Lightweight Charts™ v${escapeHtml(library.version)}, Copyright (c) TradingView, Inc.,
<a href="https://www.tradingview.com/">https://www.tradingview.com/</a>, used under the Apache License, Version 2.0
(the library is inlined in this page unchanged, with its licence header).
</footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>
${library.source}
</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
