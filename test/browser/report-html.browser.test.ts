/**
 * The backtest's report.html in a real headless Chromium: Debian's /usr/bin/chromium, driven by
 * playwright-core (which never downloads a browser). `.ci/run` installs chromium when it is missing;
 * without it this test fails rather than skips.
 *
 * Set REPORT_SCREENSHOT=/tmp/some.png to keep a screenshot of the page for a look by eye.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareReportData, renderBacktestReport, type ReportData, type SeriesName } from '../../src/backtest/report-html.ts';
import { sampleReportInput } from './report-fixture.ts';

const CHROMIUM = '/usr/bin/chromium';

interface ReportReady {
  readonly charts: number;
  readonly points: Readonly<Record<string, number>>;
}

interface Opened {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
  readonly ready: ReportReady;
}

let browser: Browser;
let dir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get update && apt-get install -y --no-install-recommends chromium); .ci/run does this before npm run test:browser`);
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  dir = mkdtempSync(join(tmpdir(), 'clobbot-report-'));
});

afterAll(async () => {
  await browser?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Writes `html` to a file, opens it via file://, and waits for the page to say its charts are drawn. */
async function open(name: string, html: string): Promise<Opened> {
  const file = join(dir, name);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(file).href);
  const handle = await page.waitForFunction('window.__reportReady', undefined, { timeout: 30_000 });
  const ready = (await handle.jsonValue()) as ReportReady;
  return { page, errors, requests, ready };
}

/** Per chart container: its canvases' sizes and how many distinct colours each holds. */
const CANVAS_PROBE = `(() => ['chart-price', 'chart-equity', 'chart-inventory'].map((id) => ({
  id,
  canvases: [...document.getElementById(id).querySelectorAll('canvas')].map((canvas) => {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < pixels.length && colours.size < 50; i += 4 * 7) colours.add((pixels[i] << 24) | (pixels[i + 1] << 16) | (pixels[i + 2] << 8) | pixels[i + 3]);
    return { width: canvas.width, height: canvas.height, colours: colours.size };
  }),
})))()`;

interface CanvasProbe {
  readonly id: string;
  readonly canvases: readonly { readonly width: number; readonly height: number; readonly colours: number }[];
}

describe('report.html in Chromium', () => {
  // 30,000 samples of 250 ms: several per second, and past the downsampling limit once per-second.
  const input = sampleReportInput({ points: 30_000, stepMs: 250 });
  const expected: ReportData = prepareReportData(input);
  let opened: Opened;

  beforeAll(async () => {
    opened = await open('report.html', renderBacktestReport(input));
  });

  afterAll(async () => {
    await opened?.page.close();
  });

  it('creates three charts holding the prepared points', () => {
    expect(expected.counts.mid.shown).toBeLessThan(expected.counts.mid.input);
    // The series report the values they hold: gaps (whitespace points) are not among them.
    const values = (name: SeriesName) => expected.series[name].filter((point) => point.value !== undefined).length;
    expect(values('bestBid')).toBeLessThan(expected.series.bestBid.length);
    expect(opened.ready).toEqual({
      charts: 3,
      points: {
        mid: values('mid'),
        bestBid: values('bestBid'),
        bestAsk: values('bestAsk'),
        fills: expected.fills.length,
        equity: values('equity'),
        inventory: values('inventory'),
      },
    });
    expect(opened.ready.points.mid).toBeGreaterThan(1_000);
    expect(opened.ready.points.fills).toBeGreaterThan(100);
  });

  it('draws on every chart: canvases with a size and more than one colour', async () => {
    const probe = (await opened.page.evaluate(CANVAS_PROBE)) as CanvasProbe[];
    expect(probe.map((chart) => chart.id)).toEqual(['chart-price', 'chart-equity', 'chart-inventory']);
    for (const chart of probe) {
      expect(chart.canvases.length, chart.id).toBeGreaterThan(0);
      for (const canvas of chart.canvases) {
        expect(canvas.width, chart.id).toBeGreaterThan(0);
        expect(canvas.height, chart.id).toBeGreaterThan(0);
      }
      expect(Math.max(...chart.canvases.map((canvas) => canvas.colours)), chart.id).toBeGreaterThan(2);
    }
  });

  it('logs no error, throws nothing and fetches nothing but the file itself', () => {
    expect(opened.errors).toEqual([]);
    expect(opened.requests.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'))).toEqual([]);
  });

  it('shows the tables, the display note and the attribution', async () => {
    const text = (await opened.page.evaluate('document.body.innerText')) as string;
    expect(text).toContain(input.title);
    expect(text).toContain('Summary');
    expect(text).toContain('final equity');
    expect(text).toContain('maxInventory');
    expect(text).toMatch(/Downsampled for display: mid 30,000 → [\d,]+/);
    expect(text).toContain('TradingView Lightweight Charts');
    const link = (await opened.page.evaluate(`document.querySelector('#attribution a').href`)) as string;
    expect(link).toBe('https://www.tradingview.com/');
  });

  it('shows the values and fills under the crosshair in a tooltip', async () => {
    const box = await opened.page.locator('#chart-price').boundingBox();
    expect(box).not.toBeNull();
    await opened.page.mouse.move(box!.x + box!.width * 0.4, box!.y + box!.height * 0.5);
    const tooltip = opened.page.locator('#tooltip');
    await tooltip.waitFor({ state: 'visible', timeout: 5_000 });
    const text = await tooltip.innerText();
    expect(text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(text).toMatch(/mid \d+/);
  });

  it('takes a screenshot of the whole page', async () => {
    const path = process.env.REPORT_SCREENSHOT ?? join(dir, 'report.png');
    const png = await opened.page.screenshot({ path, fullPage: true });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(20_000);
  });
});

describe('a hostile report in Chromium', () => {
  it('keeps a script in the title, summary, manifest or a fill size inert', async () => {
    const evil = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const base = sampleReportInput({ points: 200 });
    const input = {
      ...base,
      title: evil,
      summary: [[evil, evil]] as const,
      manifest: { [evil]: { nested: evil } },
      fills: base.fills.map((fill) => ({ ...fill, size: evil })),
    };
    const { page, errors, ready } = await open('hostile.html', renderBacktestReport(input));
    try {
      expect(ready.charts).toBe(3);
      expect(await page.evaluate('window.__pwned === undefined')).toBe(true);
      expect(await page.evaluate(`document.querySelector('h1').textContent`)).toBe(evil);
      expect(await page.evaluate('document.title')).toBe(evil);
      expect(await page.evaluate(`document.querySelectorAll('script').length`)).toBe(3);
      expect(await page.evaluate(`document.querySelectorAll('img').length`)).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
