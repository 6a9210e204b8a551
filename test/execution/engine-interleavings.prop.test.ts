/**
 * The real engine (journal, nonces, queue, cap, risk, portfolio, reconciler) against an in-test
 * relay and chain (engine-world.ts) whose every delivery is a task of fast-check's scheduler:
 * random interleavings of submissions, requests reaching the relay, answers (BROADCAST, REJECTED,
 * UNKNOWN), outcomes (delivered, delayed, withheld), blocks, disconnects and process restarts
 * (a crash: the process's clock, journal and transport die at once). After each run:
 *
 * - every signed request has exactly one final status in the journal and nothing is unresolved;
 * - nonces strictly increase across the whole run, restarts included (none used twice);
 * - the pending count never exceeded the cap, at the engine and at the relay (no 4008);
 * - no order was placed twice, and each fate is what the chain did (CONFIRMED: placed once;
 *   anything else: never);
 * - the engine's orders and slots are the chain's, and its stop cancels every one of them.
 *
 * fast-check prints the seed and path of a failure; replay it with CLOBBOT_PROP_SEED=<seed>
 * CLOBBOT_PROP_PATH=<path> (CLOBBOT_PROP_RUNS sets the number of runs, default 100;
 * CLOBBOT_TEST_LOG=debug shows the engine's log).
 */
import { privateKeyToAccount } from 'viem/accounts';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { resolveNetwork } from '../../src/config/network-config.ts';
import { QUEUE_POLICIES, type QueuePolicy } from '../../src/config/run-config.ts';
import { createExecutionEngine } from '../../src/execution/create-execution-engine.ts';
import type { ExecutionEngine, IntentFate } from '../../src/execution/execution-engine.ts';
import { nodeJournalFs } from '../../src/execution/journal.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { Intent } from '../../src/strategy/intents.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { createVenueCatalog } from '../../src/venue/venue-catalog.ts';
import { simYaml } from '../sim/relay-harness.ts';
import { auditJournal, buy, logLevel, recordingJournalFs, TEST_RISK, tempJournalDir } from './engine-support.ts';
import { FakeChain, FakeProcess, FakeRelay, FakeTransport, fakeReceipts, fakeUserData } from './engine-world.ts';

// The engine's own key for these runs (a public test key: anvil account 1).
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const OWNER = '0x2222222222222222222222222222222222222222' as Address;
const T0 = Date.UTC(2024, 7, 8, 12);

let spec: MarketSpec;
beforeAll(async () => {
  spec = createVenueCatalog(await simYaml()).markets.find((market) => market.symbol === 'MON_USDC')!;
});

type Command =
  | { readonly kind: 'submit'; readonly type: number; readonly slot: number }
  | { readonly kind: 'deliver'; readonly n: number }
  | { readonly kind: 'block' }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'disconnect' }
  | { readonly kind: 'restart' };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('submit' as const), type: fc.integer({ min: 0, max: 9 }), slot: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('deliver' as const), n: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'block' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 10, max: 600 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

interface Ticket {
  readonly intent: Intent;
  /** The price that marks the intent's new order, if it places one. */
  readonly price: bigint | undefined;
  fate: IntentFate | undefined;
}

/** Lets every promise continuation run. */
const flush = async () => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

function intentOf(command: Extract<Command, { kind: 'submit' }>, market: Address, price: bigint): { intent: Intent; price: bigint | undefined } {
  const { type, slot } = command;
  if (type <= 2) return { intent: { type: 'PlaceAndCancel', market, purpose: 'p', cancelSlots: type === 2 ? [slot] : [], orders: [buy(price)] }, price };
  if (type === 3) return { intent: { type: 'PlaceAndCancel', market, purpose: 'p', cancelSlots: [], orders: [buy(price, 100n, 'IOC')] }, price };
  if (type <= 5) {
    return { intent: { type: 'ReplaceSlots', market, purpose: 'p', ops: [{ slotIdx: slot, kind: 'place', side: 'BUY', postOnly: false, price, size: 100n, minSizeAfterBlock: 0n }] }, price };
  }
  if (type <= 7) return { intent: { type: 'ReplaceSlots', market, purpose: 'p', ops: [{ slotIdx: slot, kind: 'cancel' }] }, price: undefined };
  if (type === 8) return { intent: { type: 'CancelAll', market, purpose: 'p' }, price: undefined };
  return { intent: { type: 'CreateBatchTrigger', market, purpose: 'p', orders: [buy(price)] }, price };
}

function stateOf(engine: ExecutionEngine, market: Address): MarketState {
  let value: MarketState | undefined;
  engine.state$(market).subscribe((state) => (value = state as MarketState)).unsubscribe();
  return value!;
}

async function run(s: fc.Scheduler, commands: readonly Command[], seed: number, cap: number, policy: QueuePolicy): Promise<void> {
  const tmp = tempJournalDir();
  try {
    const clock = new VirtualClock(T0);
    const chain = new FakeChain(clock, spec, OWNER);
    const relay = new FakeRelay(chain, s, { random: seededRandom(seed), unknownRate: 0.15, withholdRate: 0.2, lostRate: 0.5 });
    const lines: (() => string[])[] = [];
    const maxPending: number[] = [];
    let generation = 0;

    const boot = async () => {
      generation += 1;
      const process = new FakeProcess(nodeJournalFs, clock);
      const recording = recordingJournalFs(process.journalFs());
      lines.push(recording.lines);
      const transport = new FakeTransport(relay, process);
      const processClock = process.scopedClock();
      const random = seededRandom(seed * 31 + generation);
      const engine = createExecutionEngine(
        { clock: processClock, random, ids: createIdSource({ clock: processClock, random }), logger: createLogger({ level: logLevel, clock }) },
        {
          network: resolveNetwork('sim'),
          signer: account,
          accountId: 1n,
          authNonce: 0n,
          markets: [spec],
          transport,
          userData: fakeUserData(chain, process),
          receipts: fakeReceipts(chain, process),
          journalDir: tmp.dir,
          engine: { maxPendingOutcomes: cap, queuePolicy: policy },
          risk: TEST_RISK,
          mid: () => 350_000n,
          deadlineSec: 3,
          tuning: { pollMs: 100, idlePollMs: 200, reconcileGraceMs: 1_000, eventLagMs: 50, reconcileQuietMs: 200, idWaitMs: 500, activeOrdersEveryMs: 1_000, resendDelayMs: 50, outcomeWaitMs: 300, outcomeGiveUpMs: 3_000 },
          journalFs: recording.fs,
        },
      );
      await engine.start();
      await flush();
      return { engine, process, tickets: [] as Ticket[] };
    };

    let current = await boot();
    let price = 300_000n;
    for (const command of commands) {
      switch (command.kind) {
        case 'submit': {
          price -= 10n;
          const { intent, price: tag } = intentOf(command, spec.address, price);
          const ticket: Ticket = { intent, price: tag, fate: undefined };
          current.tickets.push(ticket);
          void current.engine.submit(intent).then((fate) => (ticket.fate = fate));
          break;
        }
        case 'deliver':
          for (let i = 0; i < command.n && s.count() > 0; i++) {
            await s.waitNext(1);
            await flush();
          }
          break;
        case 'block':
          chain.block();
          break;
        case 'tick':
          clock.advanceBy(command.ms);
          break;
        case 'disconnect':
          relay.drop();
          break;
        case 'restart':
          maxPending.push(current.engine.stats().maxPendingOutcomes);
          current.process.kill();
          relay.forget(current.process);
          current = await boot();
          break;
      }
      await flush();
    }

    // Quiescence: deliver everything, produce blocks, let time pass until nothing is left to do.
    const { engine } = current;
    const settled = () =>
      s.count() === 0 &&
      chain.pendingCount() === 0 &&
      engine.stats().unresolved === 0 &&
      engine.stats().queued === 0 &&
      current.tickets.every((ticket) => ticket.fate !== undefined) &&
      stateOf(engine, spec.address).orders.every((order) => order.orderId !== undefined && order.slot !== undefined) &&
      stateOf(engine, spec.address).orders.length === chain.liveOrders().length;
    for (let i = 0; i < 400 && !settled(); i++) {
      while (s.count() > 0) {
        await s.waitNext(1);
        await flush();
      }
      chain.block();
      clock.advanceBy(100);
      await flush();
    }
    expect(settled(), `nothing left to do: ${JSON.stringify(engine.stats())}`).toBe(true);

    // The engine's orders and slots are the chain's.
    const slots = new Map(chain.liveOrders().map((order) => [order.id, order.slot]));
    for (const order of stateOf(engine, spec.address).orders) expect(order.slot, `order ${order.orderId}`).toBe(slots.get(order.orderId!));

    // Each fate is what the chain did; nothing was placed twice.
    for (const count of chain.createdByPrice.values()) expect(count).toBe(1);
    for (const ticket of current.tickets) {
      if (ticket.price === undefined) continue;
      const created = chain.createdByPrice.get(ticket.price) ?? 0;
      expect(created, `${ticket.intent.type} at ${ticket.price}: ${JSON.stringify(ticket.fate)}`).toBe(ticket.fate?.status === 'CONFIRMED' ? 1 : 0);
    }

    // Stop cancels everything and settles.
    let stopped = false;
    const stopping = engine.stop().then((stats) => {
      stopped = true;
      return stats;
    });
    for (let i = 0; i < 400 && !stopped; i++) {
      while (s.count() > 0) {
        await s.waitNext(1);
        await flush();
      }
      chain.block();
      clock.advanceBy(100);
      await flush();
    }
    const stats = await stopping;
    maxPending.push(stats.maxPendingOutcomes);
    expect(stats.unresolved).toBe(0);
    expect(chain.liveOrders()).toEqual([]);
    for (const value of maxPending) expect(value).toBeLessThanOrEqual(cap);
    expect(relay.maxPending).toBeLessThanOrEqual(cap);
    expect(relay.closedAtLimit).toBe(0);

    // The journal, over every process: one final status each, nonces strictly increasing.
    const audit = auditJournal(lines.flatMap((read) => read()), tmp.dir, account.address.toLowerCase() as Address);
    expect(audit.problems).toEqual([]);
    const accepted = chain.acceptedNonces;
    for (let i = 1; i < accepted.length; i++) expect(accepted[i]!).toBeGreaterThan(accepted[i - 1]!);
  } finally {
    tmp.remove();
  }
}

describe('execution engine interleavings (fast-check scheduler)', () => {
  it('keeps every invariant through random submissions, answers, outcomes, blocks, disconnects and restarts', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(commandArb, { minLength: 5, maxLength: 80 }), fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(2, 3, 5), fc.constantFrom(...QUEUE_POLICIES), (s, commands, seed, cap, policy) =>
        run(s, commands, seed, cap, policy),
      ),
      {
        numRuns: Number(process.env['CLOBBOT_PROP_RUNS'] ?? 100),
        ...(process.env['CLOBBOT_PROP_SEED'] === undefined ? {} : { seed: Number(process.env['CLOBBOT_PROP_SEED']) }),
        ...(process.env['CLOBBOT_PROP_PATH'] === undefined ? {} : { path: process.env['CLOBBOT_PROP_PATH'], endOnFailure: true }),
      },
    );
  });
});
