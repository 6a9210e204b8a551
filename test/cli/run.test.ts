/**
 * `clobbot run` end to end against the local venue: each reference strategy quotes or trades over
 * the relay, gets filled by the background flow, and stops with nothing left open.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { runCli } from '../support/cli-harness.ts';
import { lower, startTestVenue, WALLET, type TestVenue } from '../sim/relay-harness.ts';
import { hasStackTrace, runLines, statusRecords, summaryCounts, watchedIo, workspace, type Workspace } from './run-harness.ts';

const WALLET_KEY = `0x${'b2'.repeat(32)}`;
const ROOT = new URL('../..', import.meta.url).pathname;

let ws: Workspace | undefined;
let venue: TestVenue | undefined;
afterEach(async () => {
  ws?.remove();
  ws = undefined;
  await venue?.stop();
  venue = undefined;
});

function expectCleanRun(result: { code: number; stdout: string; stderr: string }): ReturnType<typeof summaryCounts> {
  expect(result.code, `${result.stdout}\n${result.stderr.slice(-3000)}`).toBe(0);
  expect(hasStackTrace(result.stderr)).toBe(false);
  const counts = summaryCounts(result.stdout);
  expect(counts.openAfterStop).toBe(0);
  return counts;
}

describe('clobbot run: the reference strategies on the in-process venue', () => {
  it('market-maker: quotes, gets filled, cancels everything on the way out', async () => {
    ws = workspace();
    const file = ws.runFile('mm.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '6s' }),
      'strategies:',
      '  - name: mm',
      '    module: strategies/market-maker.ts',
      '    markets: [MON_USDC]',
      '    params: { levels: 2, spreadBps: 3, levelSpacingBps: 3, size: "500", maxInventory: "50000", requoteThresholdBps: 2 }',
    ]);
    const result = await runCli(['run', file], {});
    expect(result.stdout).toMatch(/^clobbot run .*mm\.yaml: network sim \(in-process venue http:\/\/127\.0\.0\.1:\d+, chain 31337\), markets MON_USDC, for 6 s\n/);
    expect(result.stdout).toMatch(/ {2}account {5}funded 300000 MON, 20000 USDC; delegated and granted TRADE \(CONFIRMED in block \d+\)\n/);
    expect(result.stdout).toContain('  strategy    mm: market-maker (strategies/market-maker.ts) on MON_USDC\n');
    expect(result.stdout).toMatch(/\nrun summary: [0-9.]+ s, stopped because the duration \(6 s\) ended\n/);
    const counts = expectCleanRun(result);
    expect(counts.placed).toBeGreaterThanOrEqual(4);
    expect(counts.fills).toBeGreaterThanOrEqual(1);
    expect(result.stdout).toMatch(/ {4}volume {6}[1-9][0-9.]* MON \([0-9.]+ USDC\)\n/);
    expect(result.stdout).toMatch(/ {4}pnl {9}realized [+-]?[0-9.]+ USDC, unrealized [+-]?[0-9.]+ USDC, net of fees [+-]?[0-9.]+ USDC\n/);
    expect(result.stdout).toMatch(/ {2}engine {6}signed \d+, confirmed \d+, .*max pending outcomes \d+, reconnects 0\n/);
    expect(result.stdout).toMatch(/ {2}strategy mm: ran, \d+ intents/);
  });

  it('grid: a ladder around the mid, filled as the flow trades through it', async () => {
    ws = workspace();
    const file = ws.runFile('grid.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '6s' }),
      'strategies:',
      '  - { name: grid, module: strategies/grid.ts, markets: [MON_USDC], params: { levels: 3, stepBps: 3, size: "500", mode: recenter } }',
    ]);
    const result = await runCli(['run', file], {});
    const counts = expectCleanRun(result);
    expect(counts.placed).toBeGreaterThanOrEqual(6);
    expect(counts.fills).toBeGreaterThanOrEqual(1);
  });

  it('twap: buys its quantity in IOC slices, completes, and the run stops by itself', async () => {
    ws = workspace();
    const file = ws.runFile('twap.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '15s' }),
      'strategies:',
      '  - { name: twap, module: strategies/twap.ts, markets: [MON_USDC], params: { side: buy, quantity: "1500", duration: 4s, slices: 4, mode: ioc, slippageBps: 40 } }',
    ]);
    const result = await runCli(['run', file], {});
    const counts = expectCleanRun(result);
    expect(result.stdout).toMatch(/run summary: [0-9.]+ s, stopped because every strategy completed\n/);
    expect(counts.fills).toBeGreaterThanOrEqual(1);
    expect(counts.cancelled).toBe(0);
    // Bought (fills reach the strategy a little after their blocks, so a slice may overshoot the quantity).
    expect(Number(/ {4}position {4}\+([0-9.]+) MON/.exec(result.stdout)?.[1])).toBeGreaterThan(0);
    expect(result.stdout).toContain('  strategy twap: completed,');
  });
});

describe('clobbot run: status while running', () => {
  async function run(isTty: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, isTty };
    const file = ws!.runFile(`status-${isTty}.yaml`, [
      ...runLines({ simConfig: ws!.simConfig(), duration: '2.5s' }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "500", maxInventory: "50000" } }',
    ]);
    const code = await runCommandMain([file], io, { statusEveryMs: 1_000 });
    return { code, stdout, stderr };
  }

  it('plain text on a terminal (stdout, pretty logs), JSON status records otherwise', async () => {
    ws = workspace();
    const tty = await run(true);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/\n\d\d:\d\d:\d\d \+1 s MON_USDC mid [0-9.]+ pos [+-]?[0-9.]+ MON open \d+ fills \d+ pnl [+-]?[0-9.]+ USDC pending \d \| signed \d+ confirmed \d+(?: stale-slot reverts \d+)? reconnects 0\n/);
    expect(tty.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}in-process venue listening /);
    expect(tty.stderr).not.toContain('{"level"');

    const piped = await run(false);
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toMatch(/\+1 s MON_USDC/);
    const status = piped.stderr.split('\n').filter((line) => line.includes('"msg":"status"')).map((line) => JSON.parse(line));
    expect(status.length).toBeGreaterThanOrEqual(1);
    expect(status[0]).toMatchObject({ level: 30, markets: [{ symbol: 'MON_USDC', base: 'MON', quote: 'USDC' }], engine: { reconnects: 0 } });
  });
});

describe('clobbot run as a process', () => {
  it('stops on SIGINT: cancels its orders, prints the summary, exits 0', async () => {
    ws = workspace();
    const file = ws.runFile('sigint.yaml', [
      // Debug logs tell each confirmed intent ("intent done").
      ...runLines({ simConfig: ws.simConfig(), duration: '60s' }).map((line) => (line.startsWith('logging:') ? 'logging: { level: debug }' : line)),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 10, size: "500", maxInventory: "50000" } }',
    ]);
    const child = spawn(process.execPath, ['bin/clobbot.js', 'run', file], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Interrupted once it runs and an intent was confirmed, so there are orders to cancel.
    let confirmed = false;
    let checkedTo = 0;
    let interrupted = false;
    const interruptWhenTrading = () => {
      const lines = stderr.slice(checkedTo).split('\n');
      const partial = lines.pop()!;
      checkedTo = stderr.length - partial.length;
      confirmed ||= lines.some((line) => line.includes('"msg":"intent done"') && line.includes('"status":"CONFIRMED"'));
      if (interrupted || !confirmed || !stdout.includes('  running     ')) return;
      interrupted = true;
      child.kill('SIGINT');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      interruptWhenTrading();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      interruptWhenTrading();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(interrupted).toBe(true);
    expect(code, stderr.slice(-2000)).toBe(0);
    expect(stdout).toMatch(/run summary: [0-9.]+ s, stopped because SIGINT received\n/);
    const counts = summaryCounts(stdout);
    expect(counts.placed).toBeGreaterThanOrEqual(1);
    expect(counts.openAfterStop).toBe(0);
  });
});

describe('clobbot run: the kill switch', () => {
  it('stops the run when its file appears: everything cancelled, exit 0', async () => {
    ws = workspace();
    const stopFile = `${ws.dir}/stop-now`;
    const file = ws.runFile('kill.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '20s' }).map((line) => (line.startsWith('risk:') ? line.replace(' }', `, killSwitch: { file: ${stopFile} } }`) : line)),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 10, size: "500", maxInventory: "50000" } }',
    ]);
    const out = watchedIo();
    const running = runCommandMain([file], out.io, { statusEveryMs: 100 });
    // The file appears once a status record shows orders resting on the book.
    await out.until(({ stderr }) => statusRecords(stderr).some((status) => status.markets.some((market) => market.openOrders >= 1)), 'orders were open', running);
    writeFileSync(stopFile, '');
    const result = { code: await running, stdout: out.stdout(), stderr: out.stderr() };
    expect(result.stdout).toMatch(/run summary: [0-9.]+ s, stopped because the kill switch tripped \(file\)\n/);
    expect(expectCleanRun(result).placed).toBeGreaterThanOrEqual(1);
  });
});

describe('clobbot run against a running venue (venueUrl)', () => {
  it('sets up a wallet that owns its account, trades, and leaves no order open on the venue', async () => {
    venue = await startTestVenue({ blockMs: 50, backgroundFlow: true });
    ws = workspace();
    const file = ws.runFile('mm.yaml', [
      ...runLines({ venueUrl: venue.url, simConfig: ws.simConfig(), wallet: '{ privateKeyEnv: CLOBBOT_KEY }', duration: '4s' }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 5, size: "500", maxInventory: "50000" } }',
    ]);
    const result = await runCli(['run', file, '--journal-dir', `${ws.dir}/journal`], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.stdout).toContain(`(venue ${venue.url}, chain 31337)`);
    expect(result.stdout).toContain(`  wallet      ${lower(WALLET)} from environment variable CLOBBOT_KEY; account `);
    expectCleanRun(result);
    expect(result.stdout + result.stderr).not.toContain(WALLET_KEY.slice(2, 30));

    // The venue itself says so: no order of the account is left.
    const market = venue.config.markets[0]!.address;
    const answer = await fetch(`${venue.url}/api/v2/${lower(WALLET)}/user/orders/active/${market}`);
    const body = (await answer.json()) as { data: { data: unknown[] } };
    expect(body.data.data).toEqual([]);

    // A second run finds the wallet set up and does not set it up again.
    const again = await runCli(['run', file, '--duration', '1', '--journal-dir', `${ws.dir}/journal`], { CLOBBOT_KEY: WALLET_KEY });
    expect(again.stdout).toMatch(/ {2}account {5}already set up \(delegated, TRADE on account \d+\)\n/);
    expectCleanRun(again);
  });
});
