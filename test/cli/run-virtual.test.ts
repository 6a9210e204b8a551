/**
 * `clobbot run --virtual`: the run file against the in-process venue on virtual time. The same
 * strategy, engine and clients as a live run; minutes of venue time in seconds; byte-identical
 * summaries and journals for the same file, seed and code; the bad input it must refuse.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDurationOption } from '../../src/cli/commands/run.ts';
import { runCli } from '../support/cli-harness.ts';
import { expectFailedStrategyRun, hasStackTrace, restingThen, runLines, summaryCounts, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let sim: string;
beforeAll(() => {
  ws = workspace();
  sim = ws.simConfig({ blockMs: 400 });
});
afterAll(() => ws.remove());

const MARKET_MAKER = [
  'strategies:',
  '  - name: mm',
  '    module: strategies/market-maker.ts',
  '    markets: [MON_USDC]',
  '    params: { levels: 2, spreadBps: 4, levelSpacingBps: 4, size: "500", maxInventory: "50000", requoteThresholdBps: 3 }',
];

function marketMakerFile(name: string, duration = '3m', extra: readonly string[] = []): string {
  return ws.runFile(`${name}.yaml`, [...runLines({ simConfig: sim, duration, extra }), ...MARKET_MAKER]);
}

/** The only journal file in `dir`: its name (network and wallet), then its bytes. */
function journalOf(dir: string): string {
  const [file, ...others] = readdirSync(dir);
  expect(others).toEqual([]);
  return `${file}\n${readFileSync(join(dir, file!), 'utf8')}`;
}

describe('clobbot run --virtual', () => {
  it('trades minutes of venue time against the in-process venue and prints the same summary as a live run', async () => {
    const result = await runCli(['run', marketMakerFile('mm'), '--virtual'], {});
    expect(result.code, `${result.stdout}\n${result.stderr.slice(-3000)}`).toBe(0);
    expect(result.stdout).toMatch(/^clobbot run .*mm\.yaml: network sim \(in-process venue, no network, chain 31337\), markets MON_USDC, for 180 s of virtual time\n/);
    expect(result.stdout).toMatch(/\nrun summary: 180 s, stopped because the duration \(180 s\) ended\n/);
    const counts = summaryCounts(result.stdout);
    expect(counts.placed).toBeGreaterThanOrEqual(4);
    expect(counts.fills).toBeGreaterThanOrEqual(1);
    expect(counts.openAfterStop).toBe(0);
    // Venue time over wall time; the figure itself belongs to the bench, not to a test.
    expect(result.stdout).toMatch(/\nvirtual run: 18\d\.\d s of venue time in [0-9.]+ (?:ms|s) of wall time \([0-9,]+x real time\), seed 1, start 2026-01-01T00:00:00\.000Z\n$/);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('is deterministic: the same file and seed give byte-identical --summary files and journals; another seed does not', async () => {
    const file = marketMakerFile('same', '2m');
    const run = async (tag: string, seed: string) => {
      const summary = join(ws.dir, `${tag}.json`);
      const journalDir = join(ws.dir, `journal-${tag}`);
      const result = await runCli(['run', file, '--virtual', '--seed', seed, '--summary', summary, '--journal-dir', journalDir], {});
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      return { summary: readFileSync(summary, 'utf8'), journal: journalOf(journalDir) };
    };
    const first = await run('a', '7');
    const second = await run('b', '7');
    const other = await run('c', '8');
    expect(second.summary).toBe(first.summary);
    expect(second.journal).toBe(first.journal);
    // Another seed is another wallet, other delays and another background flow.
    expect(other.journal).not.toBe(first.journal);
    expect(other.summary).not.toBe(first.summary);

    const parsed = JSON.parse(first.summary) as { version: number; elapsedMs: number; stop: { kind: string }; markets: { symbol: string; placed: number; fills: number; openAfterStop: number }[]; engine: { signed: number } };
    expect(parsed.version).toBe(2);
    expect(parsed.elapsedMs).toBe(120_000);
    expect(parsed.stop.kind).toBe('duration');
    expect(parsed.markets[0]).toMatchObject({ symbol: 'MON_USDC', openAfterStop: 0 });
    expect(parsed.markets[0]!.placed).toBeGreaterThan(0);
    expect(parsed.engine.signed).toBeGreaterThan(0);
    // Nothing in the journal or the summary comes from the wall clock: every time is on 2026-01-01.
    for (const match of first.journal.matchAll(/"at":(\d+)/g)) expect(Number(match[1])).toBeLessThan(Date.UTC(2026, 0, 2));
  });

  it('fails a strategy that throws on virtual time exactly as a live run does', async () => {
    const module = ws.strategy('fails-virtually.ts', restingThen(`timer(1500, ctx.clock.scheduler).pipe(mergeMap(() => throwError(() => new Error('lost my way'))))`));
    const file = ws.runFile('fails.yaml', [...runLines({ simConfig: sim, duration: '1m' }), 'strategies:', `  - { name: later, module: ${module}, markets: [MON_USDC] }`]);
    const result = await runCli(['run', file, '--virtual'], {});
    expectFailedStrategyRun(result, module);
  });

  it('does not count post-only orders the book refused as errors: the kill switch stays quiet', async () => {
    // Every second a post-only buy 30 bp above the mid: the block's book refuses it (INVALID_ORDER).
    const module = ws.strategy(
      'crossing.ts',
      `
import { interval, map, withLatestFrom } from 'rxjs';
import { defineStrategy, priceAtOffset, z } from 'clobbot';
export default defineStrategy({
  name: 'crossing',
  params: z.strictObject({}),
  create: (ctx) => {
    const market = [...ctx.markets.values()][0];
    return interval(1_000, ctx.clock.scheduler).pipe(
      withLatestFrom(market.feed.mid$),
      map(([, mid]) => ({
        type: 'PlaceAndCancel', market: market.spec.address, purpose: 'cross', cancelSlots: [],
        orders: [{ side: 'BUY', price: priceAtOffset(mid, -30, 'BUY', market.spec.tickSize), size: 100n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n }],
      })),
    );
  },
});
`,
    );
    const lines = runLines({ simConfig: sim, duration: '40s' }).map((line) =>
      line.startsWith('risk:') ? 'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, killSwitch: { maxErrorRate: 0.2 } }' : line,
    );
    const file = ws.runFile('crossing.yaml', [...lines, 'strategies:', `  - { name: crossing, module: ${module}, markets: [MON_USDC] }`]);
    const result = await runCli(['run', file, '--virtual'], {});
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/run summary: 40 s, stopped because the duration \(40 s\) ended/);
    const reverted = Number(/engine {6}signed \d+, confirmed \d+, reverted (\d+)/.exec(result.stdout)?.[1]);
    expect(reverted).toBeGreaterThanOrEqual(20);
    expect(result.stderr).toContain('INVALID_ORDER: order 0: post-only order would cross the book');
    expect(result.stderr).not.toContain('kill switch tripped');
  });

  it('runs the fault script of the run file at its clock times: the relay connection drops at 20 s and the bot reconnects', async () => {
    const faults = ['virtual:', '  faults:', '    - { at: 20s, fault: { action: drop-connections } }', '    - { at: 40s, fault: { action: drop-connections } }'];
    const file = marketMakerFile('dropped', '1m', faults);
    const result = await runCli(['run', file, '--virtual'], {});
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/reconnects 2\n/);
    expect(summaryCounts(result.stdout).openAfterStop).toBe(0);
    const closes = [...result.stderr.matchAll(/"time":(\d+),[^\n]*"msg":"relay ws closed"/g)].map((match) => Number(match[1]) - Date.UTC(2026, 0, 1));
    // Each drop reaches the bot one relay latency (30 ms) after its time; the last close is the bot's own, at the stop.
    expect(closes.slice(0, 2)).toEqual([20_030, 40_030]);
  });

  it('takes every duration a run file takes: 90s, 2h, 1d', () => {
    expect(parseDurationOption('90s')).toBe(90_000);
    expect(parseDurationOption('2h')).toBe(7_200_000);
    expect(parseDurationOption('1d')).toBe(86_400_000);
  });
});

describe('clobbot run --virtual: refused input (exit 2, nothing runs)', () => {
  const refused = async (argv: readonly string[], message: RegExp) => {
    const result = await runCli(argv, {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(hasStackTrace(result.stderr)).toBe(false);
  };

  it('a run file for testnet', async () => {
    const file = ws.runFile('testnet.yaml', [
      'network: testnet',
      'wallet: { privateKeyEnv: CLOBBOT_KEY }',
      'hosts: { exchangeUrl: "https://md.example", userUrl: "https://user.example", rpcUrl: "https://rpc.example" }',
      'account: { id: 7 }',
      'markets:',
      '  - { symbol: MON_USDC, address: "0xe7908d59f465e1dfe3bf575f93fdd54226797bfe", baseToken: { address: "0x06bce055fcf8026862983918c037cfbe87879d73", symbol: MON, decimals: 18 }, quoteToken: { address: "0xcdffab23a32a262c0bcd6f78e777a1947367a4cf", symbol: USDC, decimals: 6 }, pricePrecision: 10000000, sizePrecision: 100, tickSize: 10, minSize: 100, maxSize: 1000000000, makerFeePps: 0, takerFeePps: 2000 }',
      'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, maxOrdersPerSecond: 200 }',
      'duration: 1m',
      ...MARKET_MAKER,
    ]);
    await refused(['run', file, '--virtual'], /^error CLI_USAGE: run: --virtual runs against the in-process local venue: network testnet cannot be simulated/m);
  });

  it('--network testnet or mainnet on a sim file', async () => {
    const file = marketMakerFile('sim-file');
    await refused(['run', file, '--virtual', '--network', 'testnet'], /error (CLI_USAGE|CONFIG_INVALID)/);
    await refused(['run', file, '--virtual', '--network', 'mainnet', '--allow-mainnet'], /error (CLI_USAGE|CONFIG_INVALID)/);
  });

  it('a run file with venueUrl', async () => {
    const file = ws.runFile('venue-url.yaml', [...runLines({ venueUrl: 'http://127.0.0.1:1', duration: '1m' }), ...MARKET_MAKER]);
    await refused(['run', file, '--virtual'], /^error CLI_USAGE: run: --virtual runs the venue in this process: remove venueUrl from the run file/m);
  });

  it('no duration anywhere', async () => {
    const file = ws.runFile('forever.yaml', [...runLines({ simConfig: sim }).filter((line) => !line.startsWith('duration:')), ...MARKET_MAKER]);
    await refused(['run', file, '--virtual'], /^error CLI_USAGE: run: --virtual needs a duration/m);
  });

  it('a --journal-dir that holds an earlier run of the wallet (its nonces lie ahead of the virtual clock)', async () => {
    const file = marketMakerFile('again', '20s');
    const journalDir = join(ws.dir, 'journal-again');
    const first = await runCli(['run', file, '--virtual', '--journal-dir', journalDir], {});
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    const [journal] = readdirSync(journalDir);
    await refused(['run', file, '--virtual', '--journal-dir', journalDir], new RegExp(`^error CLI_USAGE: run: --virtual starts from a fresh journal, but \\S+${journal!.replace(/\./g, '\\.')} holds an earlier run's`, 'm'));
  });

  it('a latency that is not one', async () => {
    const file = marketMakerFile('bad-latency', '1m', ['virtual:', '  latency:', '    relay: { uniform: [40ms, 5ms] }', '    marketData: fast']);
    const result = await runCli(['run', file, '--virtual'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad-latency\.yaml:\d+:\d+ virtual\.latency\.relay: /);
    expect(result.stderr).toMatch(/bad-latency\.yaml:\d+:\d+ virtual\.latency\.marketData: /);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
