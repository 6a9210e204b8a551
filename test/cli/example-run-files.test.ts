/**
 * Every reference strategy has an example run file in `config/` that runs: each is run as shipped
 * (`clobbot run config/<file> --virtual`, the file's own duration on venue time) and must exit 0 with
 * orders placed. The TWAP reports its average fill price and its slippage against the arrival mid in
 * the run's summary (printed and JSON) and in its `twap finished` line; the average is checked against
 * the run summary's volume (its fills).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { twapExecution } from '../../strategies/twap.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';
import { summaryCounts } from './run-harness.ts';

/** The strategy modules named by the run files in config/. */
function strategyModulesOfExamples(): Set<string> {
  const modules = new Set<string>();
  for (const file of readdirSync('config').filter((name) => name.endsWith('.yaml'))) {
    for (const match of readFileSync(`config/${file}`, 'utf8').matchAll(/^\s+module: (strategies\/[\w-]+\.ts)/gm)) modules.add(match[1]!);
  }
  return modules;
}

describe('example run files', () => {
  it('every reference strategy in strategies/ has a run file in config/', () => {
    const reference = readdirSync('strategies').filter((name) => name.endsWith('.ts')).map((name) => `strategies/${name}`);
    expect(reference.length).toBeGreaterThanOrEqual(3);
    expect([...strategyModulesOfExamples()].sort()).toEqual(expect.arrayContaining(reference.sort()));
  });

  it('config/grid.yaml: a virtual run of its 60 s exits 0 with orders placed, none left open', async () => {
    const result = await runCli(['run', 'config/grid.yaml', '--virtual'], {});
    expect(result.code, `${result.stdout}\n${result.stderr.slice(-2000)}`).toBe(0);
    expect(result.stdout).toMatch(/\nrun summary: 60(?:\.0)? s, stopped because the duration \(60 s\) ended\n/);
    const counts = summaryCounts(result.stdout);
    expect(counts.placed).toBeGreaterThanOrEqual(6);
    expect(counts.openAfterStop).toBe(0);
    expect(result.stdout).toMatch(/\n {2}strategy grid: ran, \d+ intents\n/);
  });

  it('config/twap.yaml: a virtual run exits 0; its summary gives the fills\' average price and the slippage against the arrival mid', async () => {
    const tmp = tempDir();
    const summaryFile = join(tmp.dir, 'summary.json');
    const result = await runCli(['run', 'config/twap.yaml', '--virtual', '--summary', summaryFile], {});
    const json = JSON.parse(readFileSync(summaryFile, 'utf8')) as { strategies: { name: string; figures: Record<string, string | null> | null; figuresError: unknown }[] };
    tmp.remove();
    expect(result.code, `${result.stdout}\n${result.stderr.slice(-2000)}`).toBe(0);
    const counts = summaryCounts(result.stdout);
    expect(counts.placed).toBeGreaterThanOrEqual(1);
    expect(counts.fills).toBeGreaterThanOrEqual(1);
    expect(result.stdout).toMatch(/\n {2}strategy twap: completed, \d+ intents\n/);

    // The JSON summary's figures of the TWAP, and the same in the printed summary under its line.
    expect(json.strategies.map((strategy) => strategy.name)).toEqual(['twap']);
    const { figures, figuresError } = json.strategies[0]!;
    expect(figuresError).toBeNull();
    expect(figures).toMatchObject({ side: 'BUY', quantity: '20000', executed: '20000', finished: 'quantity reached' });
    const { avgPrice, arrivalMid, slippageBps } = figures as Record<string, string>;
    const printed = result.stdout.slice(result.stdout.indexOf('  strategy twap: '));
    for (const [name, value] of Object.entries(figures!)) expect(printed).toContain(`\n    ${name.padEnd(11)} ${value}\n`);
    // Its `twap finished` line logs the same figures.
    const finished = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, string>)
      .find((line) => line['msg'] === 'twap finished');
    expect(finished, result.stderr.slice(-2000)).toMatchObject(figures!);
    expect(avgPrice).toMatch(/^\d+\.\d+$/);
    expect(arrivalMid).toMatch(/^\d+\.\d+$/);
    expect(slippageBps).toMatch(/^-?\d+\.\d\d$/);

    // The summary's volume is the fills': base and quote (the quote of each fill rounded to 1e-6 USDC).
    const volume = /\n {4}volume {6}([0-9.]+) MON \(([0-9.]+) USDC\)\n/.exec(result.stdout);
    expect(volume, result.stdout).not.toBeNull();
    const base = new Decimal(volume![1]!);
    const quote = new Decimal(volume![2]!);
    expect(base.toFixed()).toBe('20000');
    expect(new Decimal(avgPrice!).times(base).minus(quote).abs().toNumber()).toBeLessThanOrEqual(counts.fills * 1e-6);
    // A buy: slippage is how far above the arrival mid it paid, in bps.
    const expected = new Decimal(avgPrice!).minus(arrivalMid!).div(arrivalMid!).times(10_000);
    expect(Math.abs(expected.minus(slippageBps!).toNumber())).toBeLessThanOrEqual(0.01);
    // The arrival mid is a price of the market then: within 3 % of the average paid.
    expect(new Decimal(arrivalMid!).div(avgPrice!).minus(1).abs().toNumber()).toBeLessThan(0.03);
  });

  it('twapExecution: the volume-weighted average, and slippage positive when it cost (buy above, sell below the arrival mid)', () => {
    // Two fills: 1 unit at 351 000, 3 units at 349 000 (price units of 1e-7): average 349 500 = 0.03495.
    const notional = 1n * 351_000n + 3n * 349_000n;
    const buy = twapExecution({ side: 'BUY', notional, executed: 4n, arrivalMid: new Decimal(349_000), pricePrecision: 10_000_000n });
    expect(buy).toEqual({ avgPrice: '0.03495', arrivalMid: '0.0349', slippageBps: '14.33' });
    const sell = twapExecution({ side: 'SELL', notional, executed: 4n, arrivalMid: new Decimal(350_000), pricePrecision: 10_000_000n });
    expect(sell).toEqual({ avgPrice: '0.03495', arrivalMid: '0.035', slippageBps: '14.29' });
    expect(twapExecution({ side: 'BUY', notional: 0n, executed: 0n, arrivalMid: undefined, pricePrecision: 100n })).toEqual({ avgPrice: null, arrivalMid: null, slippageBps: null });
  });
});
