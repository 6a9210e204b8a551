import { describe, expect, it } from 'vitest';
import {
  MAX_POINTS_PER_SERIES,
  SERIES_NAMES,
  downsampleMinMax,
  jsonForScript,
  lightweightChartsBundle,
  prepareReportData,
  renderBacktestReport,
  thinFills,
  toSecondSeries,
  type BacktestReportInput,
  type ChartPoint,
} from '../../src/backtest/report-html.ts';
import { sampleReportInput } from '../browser/report-fixture.ts';

const EVIL = '</script><script>alert(1)</script>';

function reportData(html: string): unknown {
  const match = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

/** Every opening and closing script tag in the document. */
const scriptTags = (html: string) => ({ open: html.match(/<script\b/gi)?.length ?? 0, close: html.match(/<\/script/gi)?.length ?? 0 });

const small: BacktestReportInput = {
  title: 'mm on BTCUSDT',
  summary: [['fills', '2']],
  manifest: { strategy: 'mm' },
  mid: [
    { atMs: 1_000, value: 100 },
    { atMs: 2_000, value: 101 },
    { atMs: 3_000, value: 99.5 },
  ],
  bestBid: [
    { atMs: 1_000, value: 99 },
    { atMs: 2_000, value: Number.NaN },
    { atMs: 3_000, value: 98.5 },
  ],
  bestAsk: [{ atMs: 1_000, value: 101 }],
  fills: [
    { atMs: 2_500, side: 'SELL', price: 101, size: '0.02', liquidity: 'maker' },
    { atMs: 1_200, side: 'BUY', price: 99, size: '0.01', liquidity: 'taker' },
  ],
  equity: [{ atMs: 1_000, value: 0 }],
  inventory: [],
};

describe('renderBacktestReport', () => {
  const html = renderBacktestReport(sampleReportInput({ points: 2_000 }));

  it('is one self-contained document: the library inlined, nothing fetched', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(lightweightChartsBundle().source);
    expect(html).not.toMatch(/\bsrc\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<img\b/i);
    expect(html).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import/i);
    // The only href to the web is the attribution link in the footer (the library builds its own logo link at run time).
    const hrefs = [...html.matchAll(/href\s*=\s*"(https?:[^"]*)"/gi)].map((match) => match[1]);
    expect(hrefs).toEqual(['https://www.tradingview.com/']);
    const footer = /<footer id="attribution">([\s\S]*?)<\/footer>/.exec(html)?.[1] ?? '';
    expect(footer).toContain('<a href="https://www.tradingview.com/">');
    expect(footer).toContain('TradingView Lightweight Charts');
    expect(footer).toContain('Apache License');
    expect(html).toContain("default-src 'none'");
    expect(scriptTags(html)).toEqual({ open: 3, close: 3 });
  });

  it('embeds the prepared data as JSON that parses back', () => {
    const input = sampleReportInput({ points: 2_000 });
    expect(reportData(renderBacktestReport(input))).toEqual(prepareReportData(input));
  });

  it('carries a small input through unchanged: UTC seconds, ordered fills, NaN as a gap', () => {
    const data = reportData(renderBacktestReport(small));
    expect(data).toEqual({
      title: 'mm on BTCUSDT',
      maxPoints: MAX_POINTS_PER_SERIES,
      series: {
        mid: [
          { time: 1, value: 100 },
          { time: 2, value: 101 },
          { time: 3, value: 99.5 },
        ],
        bestBid: [{ time: 1, value: 99 }, { time: 2 }, { time: 3, value: 98.5 }],
        bestAsk: [{ time: 1, value: 101 }],
        equity: [{ time: 1, value: 0 }],
        inventory: [],
      },
      fills: [
        { time: 1, side: 'BUY', price: 99, size: '0.01', liquidity: 'taker' },
        { time: 2, side: 'SELL', price: 101, size: '0.02', liquidity: 'maker' },
      ],
      counts: {
        mid: { input: 3, shown: 3 },
        bestBid: { input: 3, shown: 3 },
        bestAsk: { input: 1, shown: 1 },
        equity: { input: 1, shown: 1 },
        inventory: { input: 0, shown: 0 },
        fills: { input: 2, shown: 2 },
      },
    });
  });

  it('keeps a hostile title, summary or manifest inert', () => {
    const input: BacktestReportInput = {
      ...small,
      title: EVIL,
      summary: [[EVIL, EVIL]],
      manifest: { [EVIL]: EVIL, nested: { note: `${EVIL} & "quotes" 'too'` } },
      fills: [{ atMs: 1_000, side: 'BUY', price: 99, size: EVIL, liquidity: 'maker' }],
    };
    const page = renderBacktestReport(input);
    expect(scriptTags(page)).toEqual({ open: 3, close: 3 });
    expect(page).not.toContain('alert(1)</script>');
    expect(page).toContain(`<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>`);
    expect(page).toContain(`<h1>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h1>`);
    expect(page).toContain('&amp; &quot;quotes&quot; &#39;too&#39;');
    const data = reportData(page) as { title: string; fills: { size: string }[] };
    expect(data.title).toBe(EVIL);
    expect(data.fills[0]!.size).toBe(EVIL);
  });

  it('prints the manifest as nested key/value tables, other JSON values pretty-printed', () => {
    const page = renderBacktestReport({ ...small, manifest: { run: { id: 'r1', venue: { name: 'local' } }, feeds: ['book', 'trades'], n: 3, big: 10n, empty: {} } });
    const manifest = /<h2>Manifest<\/h2>\s*([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '';
    expect(manifest).toContain('<tr><th scope="row">run</th><td><table class="kv"><tr><th scope="row">id</th><td><code>r1</code></td></tr>');
    expect(manifest).toContain('<th scope="row">venue</th><td><table class="kv"><tr><th scope="row">name</th><td><code>local</code>');
    expect(manifest).toContain(`<pre>${['[', '  &quot;book&quot;,', '  &quot;trades&quot;', ']'].join('\n')}</pre>`);
    expect(manifest).toContain('<th scope="row">n</th><td><code>3</code>');
    expect(manifest).toContain('<th scope="row">big</th><td><code>&quot;10&quot;</code>');
    expect(manifest).toContain('<th scope="row">empty</th><td><code>{}</code>');
  });

  it('says on the page when and how series were downsampled', () => {
    expect(renderBacktestReport(small)).toContain('No series needed downsampling.');
    const big = renderBacktestReport(sampleReportInput({ points: 40_000, stepMs: 1_000 }));
    expect(big).toMatch(/Downsampled for display: mid 40,000 → [\d,]+/);
    expect(big).toContain('at most 5,000 points');
  });
});

describe('display rules', () => {
  it('orders points by time and keeps the last value of each UTC second', () => {
    const points = toSecondSeries([
      { atMs: 3_100, value: 5 },
      { atMs: 1_000, value: 1 },
      { atMs: 1_999, value: 2 },
      { atMs: 1_500, value: 3 },
      { atMs: Number.NaN, value: 9 },
      { atMs: 2_000, value: Number.POSITIVE_INFINITY },
    ]);
    expect(points).toEqual([{ time: 1, value: 2 }, { time: 2 }, { time: 3, value: 5 }]);
  });

  it('downsamples to at most the limit with strictly increasing times, keeping ends and spikes', () => {
    const input = sampleReportInput({ points: 120_000, stepMs: 1_000 });
    const data = prepareReportData(input);
    for (const name of SERIES_NAMES) {
      const series = data.series[name];
      expect(series.length, name).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
      expect(series.length, name).toBeGreaterThan(MAX_POINTS_PER_SERIES * 0.9);
      for (let i = 1; i < series.length; i += 1) expect(series[i]!.time > series[i - 1]!.time, `${name} at ${i}`).toBe(true);
      const full = toSecondSeries(input[name]);
      expect(series[0], name).toEqual(full[0]);
      expect(series.at(-1), name).toEqual(full.at(-1));
      const values = (points: readonly ChartPoint[]) => points.flatMap((point) => (point.value === undefined ? [] : [point.value]));
      expect(Math.max(...values(series)), name).toBe(Math.max(...values(full)));
      expect(Math.min(...values(series)), name).toBe(Math.min(...values(full)));
      const byTime = new Map(full.map((point) => [point.time, point]));
      for (const point of series) expect(byTime.get(point.time)).toEqual(point);
    }
    // The gaps (paused quotes) survive downsampling too.
    expect(data.series.bestBid.some((point) => point.value === undefined)).toBe(true);
    expect(data.counts.mid).toEqual({ input: 120_000, shown: data.series.mid.length });
  });

  it('leaves short series alone and refuses a tiny limit', () => {
    const points = [{ time: 1, value: 1 }, { time: 2, value: 2 }];
    expect(downsampleMinMax(points, 8)).toEqual(points);
    expect(() => downsampleMinMax(Array.from({ length: 10 }, (_, i) => ({ time: i, value: i })), 4)).toThrow(RangeError);
  });

  it('stays within the limit however many gaps a series has, and draws a run of gaps as one', () => {
    const flickering = Array.from({ length: 30_000 }, (_, i): ChartPoint => (i % 2 === 0 ? { time: i, value: i % 7 } : { time: i }));
    const shown = downsampleMinMax(flickering);
    expect(shown.length).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
    expect(shown.filter((point) => point.value === undefined).length).toBeGreaterThan(1_000);
    const runs = Array.from({ length: 6_000 }, (_, i): ChartPoint => (Math.floor(i / 3) % 2 === 0 ? { time: i, value: i } : { time: i }));
    const compacted = downsampleMinMax(runs);
    expect(compacted).toHaveLength(4_001);
    expect(compacted.slice(0, 5)).toEqual([{ time: 0, value: 0 }, { time: 1, value: 1 }, { time: 2, value: 2 }, { time: 3 }, { time: 6, value: 6 }]);
  });

  it('thins fills to an evenly spaced, time-ordered subset', () => {
    const fills = Array.from({ length: 12_000 }, (_, i) => ({ atMs: (12_000 - i) * 100, side: 'BUY' as const, price: i, size: '1', liquidity: 'maker' as const }));
    const thinned = thinFills(fills);
    expect(thinned).toHaveLength(MAX_POINTS_PER_SERIES);
    for (let i = 1; i < thinned.length; i += 1) expect(thinned[i]!.time).toBeGreaterThanOrEqual(thinned[i - 1]!.time);
    expect(thinned[0]!.time).toBe(0);
  });

  it('writes JSON that cannot close a script element and parses back unchanged', () => {
    const value = { text: `${EVIL} <!-- & \u2028 \u2029 >` };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('reads the library bundle once', () => {
    const first = lightweightChartsBundle();
    expect(lightweightChartsBundle()).toBe(first);
    expect(first.source).toContain('window.LightweightCharts');
    expect(first.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
