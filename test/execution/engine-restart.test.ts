/**
 * Restart: an engine in a child process, with intents in flight against the running venue, is
 * killed with SIGKILL. A new engine on the same journal directory reconciles everything the journal
 * left unresolved: nothing stays unresolved, no order is placed twice, every new nonce is above
 * every earlier one, and it knows the slots of the orders the killed engine left open (so its stop
 * can cancel them).
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournalRecords } from '../../src/execution/journal-history.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
import { journalPath, openJournal } from '../../src/execution/journal.ts';
import { liveClock } from '../../src/core/clock.ts';
import { lower } from '../sim/relay-harness.ts';
import {
  buy,
  createdByPrice,
  engineOn,
  placeIntent,
  startEngineVenue,
  tempJournalDir,
  until,
  venueOrderIds,
  WALLET,
  type EngineSetup,
  type EngineVenue,
  currentState,
  tearDownEngineWorld,
} from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(async () => {
  await tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

function current(market: `0x${string}`): MarketState {
  return currentState(setup!, market);
}

/** Runs the child engine until it has intents in flight, then kills it with SIGKILL. */
async function runAndKill(url: string, dir: string, accountId: bigint): Promise<string> {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'test/execution/fixtures/engine-child.ts', url, dir, String(accountId), '30', '300000'], {
    cwd: new URL('../..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /inflight \d+ \d+/.exec(out);
      if (found) {
        child.kill('SIGKILL');
        resolve(found[0]);
      }
    });
    child.on('exit', () => reject(new Error(`the child exited before it had intents in flight: ${stderr}`)));
  });
  expect(await exit).toBe('SIGKILL');
  return line;
}

describe('execution engine restart', () => {
  it('reconciles what a SIGKILLed engine left in flight: nothing unresolved, no duplicate order, nonces above every earlier one', { timeout: 90_000 }, async () => {
    v = await startEngineVenue({ blockMs: 250 });
    tmp = tempJournalDir();
    const market = v.market.address;
    await runAndKill(v.venue.url, tmp.dir, v.accountId);

    // What the killed engine left: requests signed and not resolved.
    const left = openJournal({ clock: liveClock }, { dir: tmp.dir, network: 'sim', wallet: lower(WALLET) });
    const unresolvedBefore = left.restored.unresolved.length;
    const floor = left.restored.nonceFloor;
    left.close();
    expect(unresolvedBefore).toBeGreaterThan(0);
    const oldNonces = readJournalRecords(journalPath({ dir: tmp.dir, network: 'sim', wallet: lower(WALLET) })).flatMap((record) =>
      record.kind === 'signed' ? [BigInt(record.nonce)] : [],
    );
    expect(oldNonces.every((nonce) => nonce <= floor)).toBe(true);

    setup = engineOn(v, tmp.dir, { engine: { maxPendingOutcomes: 16 } });
    const { engine } = setup;
    await engine.start();
    await until(() => engine.stats().unresolved === 0, 30_000, 'every restored request settled');
    expect(engine.stats().reconciled + engine.stats().confirmed).toBeGreaterThan(0);

    // Something new: signed above every earlier nonce.
    expect(await engine.submit(placeIntent(market, [buy(250_000n)]))).toMatchObject({ status: 'CONFIRMED' });
    const newSigned = setup.journal
      .lines()
      .map((line) => JSON.parse(line) as { kind: string; nonce?: string })
      .filter((record) => record.kind === 'signed');
    expect(newSigned).toHaveLength(1);
    expect(BigInt(newSigned[0]!.nonce!)).toBeGreaterThan(floor);

    // No order placed twice; the engine knows every open order with the venue's slot.
    for (const [price, count] of createdByPrice(v, market)) expect(count, `orders at ${price}`).toBe(1);
    const venueOrders = v.venue.server.venue.openOrders(v.accountId, market);
    await until(
      () => current(market).orders.filter((order) => order.orderId !== undefined && order.slot !== undefined).length === venueOrders.length,
      10_000,
      'the engine to know every open order and its slot',
    );
    const slots = new Map(venueOrders.map((order) => [order.id, order.slot]));
    for (const order of current(market).orders) expect(order.slot, `order ${order.orderId}`).toBe(slots.get(order.orderId!));

    // Its stop cancels the orders the killed engine placed too.
    const stats = await engine.stop();
    expect(stats.unresolved).toBe(0);
    expect(venueOrderIds(v, market)).toEqual([]);
    const after = openJournal({ clock: liveClock }, { dir: tmp.dir, network: 'sim', wallet: lower(WALLET) });
    expect(after.restored.unresolved).toEqual([]);
    expect(after.restored.nonceFloor).toBeGreaterThan(floor);
    after.close();
  });
});
