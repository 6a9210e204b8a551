/**
 * The venue dies mid-run with orders open (a `clobbot sim` on loopback, stopped under the bot): the
 * run cannot cancel them nor ask the venue what is left after its stop, so it cannot prove its orders
 * closed. It must say so, in the printed and the JSON summary, name the orders that may still be open
 * and how to check them, and exit 1.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { startTestVenue, type TestVenue } from '../sim/relay-harness.ts';
import { hasStackTrace, runLines, statusRecords, watchedIo, workspace, type Workspace } from './run-harness.ts';

const WALLET_KEY = `0x${'b2'.repeat(32)}`;

let ws: Workspace | undefined;
let venue: TestVenue | undefined;
afterEach(async () => {
  ws?.remove();
  ws = undefined;
  await venue?.stop();
  venue = undefined;
});

describe('clobbot run: the venue dies with orders open', () => {
  it('exits 1 with RUN_OPEN_ORDERS_UNKNOWN naming the orders that may be open; both summaries say the check failed', async () => {
    venue = await startTestVenue({ blockMs: 50, backgroundFlow: true });
    ws = workspace();
    const file = ws.runFile('mm.yaml', [
      ...runLines({ venueUrl: venue.url, simConfig: ws.simConfig(), wallet: '{ privateKeyEnv: CLOBBOT_KEY }', duration: '60s' }),
      'strategies:',
      // Wide quotes: they rest on the book until the venue dies.
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 200, size: "500", maxInventory: "50000" } }',
    ]);
    const summaryFile = `${ws.dir}/summary.json`;
    const stop = new AbortController();
    const out = watchedIo({ env: { CLOBBOT_KEY: WALLET_KEY } });
    const running = runCommandMain([file, '--journal-dir', `${ws.dir}/journal`, '--summary', summaryFile], out.io, { stop: stop.signal, statusEveryMs: 100 });
    await out.until(({ stderr }) => statusRecords(stderr).some((status) => status.markets.some((market) => market.openOrders >= 2)), 'orders were open', running);
    // Three more seconds of the run: the engine has read the order events that name them.
    const openSince = (statusRecords(out.stderr()).find((status) => status.markets.some((market) => market.openOrders >= 2)) as unknown as { elapsedMs: number }).elapsedMs;
    await out.until(({ stderr }) => statusRecords(stderr).some((status) => (status as unknown as { elapsedMs: number }).elapsedMs >= openSince + 3_000), 'three more seconds', running);

    // The venue dies; what rests on its books is what the run left open.
    const model = venue.server.venue;
    const marketAddress = venue.config.markets[0]!.address;
    await venue.stop();
    venue = undefined;
    const accountId = BigInt(/; account (\d+)/.exec(out.stdout())![1]!);
    const openOnVenue = model.openOrders(accountId, marketAddress).map((order) => order.id);
    expect(openOnVenue.length).toBeGreaterThan(0);

    stop.abort();
    const code = await running;
    const stdout = out.stdout();
    const stderr = out.stderr();
    expect(code, stdout + stderr.slice(-2000)).toBe(1);
    expect(hasStackTrace(stderr)).toBe(false);

    const message = /error RUN_OPEN_ORDERS_UNKNOWN: the venue could not be asked whether orders are still open after the stop \((HTTP_[A-Z_]+): [^\n]*\); may still be open: MON_USDC (?:orders? ([0-9, ]+))?(?: and )?(?:(\d+) orders? not known by id yet)?: check with clobbot account status --config (\S+)\n/.exec(stderr);
    expect(message, stderr.slice(-3000)).not.toBeNull();
    expect(message![4]).toBe(file);
    const named = message![2] === undefined ? [] : message![2].split(', ').map(BigInt);
    const withoutId = Number(message![3] ?? 0);
    // The orders named are those resting on the dead venue's book.
    for (const id of named) expect(openOnVenue).toContain(id);
    expect(named.length + withoutId).toBe(openOnVenue.length);

    // The printed summary says the check failed, rather than leaving it out.
    expect(stdout).toMatch(/\n {4}orders {6}placed \d+, cancelled \d+, filled \d+ \(\d+ fills?\), open after stop unknown \(the check failed\)\n/);
    expect(stdout).toContain(`  open orders check failed: ${message![1]}`);
    // And so does the JSON one.
    const json = JSON.parse(readFileSync(summaryFile, 'utf8')) as {
      markets: { openAfterStop: number | null }[];
      openOrdersCheck: { status: string; reason: string; mayBeOpen: { symbol: string; orderIds: string[]; withoutId: number }[] };
    };
    expect(json.markets[0]!.openAfterStop).toBeNull();
    expect(json.openOrdersCheck.status).toBe('failed');
    expect(json.openOrdersCheck.reason).toMatch(/^HTTP_[A-Z_]+: /);
    expect(json.openOrdersCheck.mayBeOpen).toEqual([{ symbol: 'MON_USDC', orderIds: named.map(String), withoutId }]);
  }, 60_000);
});
