/**
 * The report.html of a real backtest (the market maker on a recording of itself) in Debian's headless
 * Chromium: the page the user opens draws its three charts from the run's own data, with no error.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
let browser: Browser;
let dir: string;
let out: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium)`);
  dir = mkdtempSync(join(tmpdir(), 'clobbot-backtest-report-'));
  const record = await runCli(['run', 'config/market-maker.yaml', '--virtual', '--duration', '3m', '--record', join(dir, 'rec'), '--journal-dir', join(dir, 'journal')]);
  expect(record.code, record.stderr.slice(-2000)).toBe(0);
  out = join(dir, 'bt');
  const backtest = await runCli(['backtest', 'config/market-maker.yaml', '--feed', join(dir, 'rec', readdirSync(join(dir, 'rec'))[0]!), '--out', out]);
  expect(backtest.code, backtest.stderr.slice(-2000)).toBe(0);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("a backtest's report.html in Chromium", () => {
  it('draws the run: its mid and quotes, its fills, equity and inventory, with no error and no request', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    const ready = (await (await page.waitForFunction('window.__reportReady', undefined, { timeout: 30_000 })).jsonValue()) as { charts: number; points: Record<string, number> };
    const fills = readFileSync(join(out, 'fills.csv'), 'utf8').trim().split('\n').length - 1;
    const seconds = readFileSync(join(out, 'equity.csv'), 'utf8').trim().split('\n').length - 1;
    expect(ready.charts).toBe(3);
    expect(fills).toBeGreaterThan(0);
    expect(ready.points['fills']).toBe(fills);
    // One sample a second: every one of them reaches the price and equity charts.
    expect(ready.points['mid']).toBeGreaterThan(seconds * 0.9);
    expect(ready.points['equity']).toBeGreaterThan(seconds * 0.9);
    expect(ready.points['bestBid']).toBeGreaterThan(0);
    const text = (await page.evaluate('document.body.innerText')) as string;
    expect(text).toContain('mm on MON_USDC');
    expect(text).toMatch(/sha256/);
    expect(errors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});
