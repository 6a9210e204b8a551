/**
 * Account truth across runs, through the real engine on the in-process venue (virtual time): the
 * journal's ledger carries the account's position from one run to the next, fills made while the
 * bot was down are counted once, risk limits apply to the account's position, and the balances
 * come from the chain (eth_call), with a disagreement (a deposit while the bot was down) reported
 * with its amounts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import { createChainReader, type ChainReader } from '../../src/clients/chain-reader.ts';
import { readJournalRecords } from '../../src/execution/journal-history.ts';
import { journalPath } from '../../src/execution/journal.ts';
import { lower } from '../sim/relay-harness.ts';
import { currentState, engineOn, OWNER, placeIntent, run, startEngineVenue, tearDownEngineWorld, tempJournalDir, until, WALLET, type EngineSetup, type EngineVenue } from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

const OTHER: Address = '0x0000000000000000000000000000000000c0ffee';

/** Another account of the venue rests a sell (or takes with an IOC) on the market. */
function otherTrades(world: EngineVenue, order: OrderIntent): void {
  const market = world.market;
  world.model.fund(OTHER, market.baseToken.address, 10n ** 24n);
  const id = world.model.fund(OTHER, market.quoteToken.address, 10n ** 12n);
  world.model.enqueueSystemTx(id, market.address, { kind: 'batch', orders: [order], cancelSlotIdxs: [], expectedOrderIds: [] });
}

const order = (side: 'BUY' | 'SELL', price: bigint, quantity: bigint, tif: 'GTC' | 'IOC'): OrderIntent => ({
  side,
  quantity,
  price,
  tif,
  executionInstruction: 'NONE',
  minSizeAfterBlock: 0n,
});

/** Whether the engine has read every token's balance from the chain (its first read is done). */
const balancesRead = (setup: EngineSetup, world: EngineVenue) =>
  world.markets.every((spec) => currentState(setup, spec.address).balances.base !== undefined && currentState(setup, spec.address).balances.quote !== undefined);

/** An engine with the chain reads over the in-process venue's JSON-RPC route. */
function engineWithChain(world: EngineVenue, dir: string, maxPosition = '100000000') {
  const accountCore = world.model.info().contracts.accountCore;
  const chain = createChainReader({ transport: world.venue.transport, clock: world.clock, random: seededRandom(5) }, { rpcUrl: world.network.hosts.rpcUrl!, accountCore });
  return engineOn(world, dir, { overrides: { chain, risk: { maxPosition, maxOrderSize: '1000000', maxNotional: '100000000', priceBandBps: 9_000, maxOrdersPerSecond: 10_000, maxOpenOrders: 100_000 } }, tuning: { accountReadMs: 2_000 } });
}

describe('account truth across runs', () => {
  it('carries the position through the journal, counts fills made while down once, and limits the account', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const market = world.market.address;
    const size = (human: bigint) => human * world.market.sizePrecision;

    // Run 1: buys 3 MON from another account's resting sell, leaves a bid resting, stops without cancelling.
    const first = (setup = engineWithChain(world, tmp.dir));
    await run(world, async () => {
      otherTrades(world, order('SELL', 360_000n, size(3n), 'GTC'));
      await first.engine.start();
      const taken = await first.engine.submit(placeIntent(market, [{ side: 'BUY', price: 360_000n, size: size(3n), tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }]));
      expect(taken.status).toBe('CONFIRMED');
      const rested = await first.engine.submit(placeIntent(market, [{ side: 'BUY', price: 340_000n, size: size(2n), tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }]));
      expect(rested.status).toBe('CONFIRMED');
      await until(world, () => currentState(first, market).position === size(3n) && currentState(first, market).orders.length === 1, 10_000, 'the fill and the resting bid');
      await first.engine.stop({ cancelAll: false });
    });
    const ledgers = readJournalRecords(journalPath({ dir: tmp.dir, network: 'sim', wallet: lower(WALLET) })).filter((record) => record.kind === 'ledger');
    expect(ledgers.at(-1)).toMatchObject({ markets: expect.arrayContaining([expect.objectContaining({ market, position: size(3n).toString(), fills: 1 })]) });

    // While the bot is down: another account sells 2 MON into the resting bid.
    await run(world, async () => {
      otherTrades(world, order('SELL', 340_000n, size(2n), 'IOC'));
      await new Promise<void>((resolve) => world.clock.scheduler.schedule(() => resolve(), 500));
    });
    expect(world.model.openOrders(world.accountId, market)).toHaveLength(0);

    // Run 2: the account's position is 5 MON: 3 carried over, 2 found (counted once), and the
    // chain's balances agree with the ledger and those fills.
    const second = (setup = engineWithChain(world, tmp.dir, '6'));
    await run(world, async () => {
      await second.engine.start();
      // The chain reads come in after the start (trading does not wait for them).
      await until(world, () => balancesRead(second, world), 5_000, 'the first chain read');
      const state = currentState(second, market);
      expect(state.position).toBe(size(5n));
      expect(state.carried).toMatchObject({ position: size(3n), fills: 1 });
      expect(state.fillCount).toBe(1);
      expect(second.engine.balanceDisagreements()).toEqual([]);
      const base = state.balances.base!;
      expect(base.total).toBe(world.model.balance(world.accountId, world.market.baseToken.address).available);
      // maxPosition 6 MON: the account holds 5, so a 2 MON bid would take it to 7.
      const refused = await second.engine.submit(placeIntent(market, [{ side: 'BUY', price: 300_000n, size: size(2n), tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }]));
      expect(refused).toMatchObject({ status: 'REFUSED', code: 'RISK_MAX_POSITION' });
      await second.engine.stop();
    });

    // A deposit while down: the next run says the chain and the journal disagree, by how much.
    world.model.fund(lower(OWNER), world.market.baseToken.address, 7n);
    const third = (setup = engineWithChain(world, tmp.dir));
    await run(world, async () => {
      await third.engine.start();
      await until(world, () => balancesRead(third, world), 5_000, 'the first chain read');
      expect(currentState(third, market).position).toBe(size(5n));
      expect(currentState(third, market).fillCount).toBe(0);
      expect(third.engine.balanceDisagreements()).toEqual([expect.objectContaining({ token: world.market.baseToken.address, symbol: 'MON' })]);
      const [disagreement] = third.engine.balanceDisagreements();
      expect(disagreement!.chain - disagreement!.expected).toBe(7n);
      await third.engine.stop();
    });
  });

  it('takes the slots of orders no request of this process placed from the chain, so stop can cancel them', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const market = world.market.address;
    // Without the chain reads the slots of such orders are unknown and stop cannot cancel them.
    world.model.enqueueSystemTx(world.accountId, market, { kind: 'batch', orders: [order('BUY', 299_000n, 100n, 'GTC')], cancelSlotIdxs: [], expectedOrderIds: [] });
    const blind = (setup = engineOn(world, tmp.dir));
    await run(world, async () => {
      await blind.engine.start();
      expect(currentState(blind, market).orders).toHaveLength(1);
      expect(currentState(blind, market).slots.every((slot) => slot === null)).toBe(true);
      await blind.engine.stop({ timeoutMs: 2_000 });
    });
    expect(world.model.openOrders(world.accountId, market)).toHaveLength(1);

    // Two more orders of the account placed outside this engine (another process, or a compacted history).
    world.model.enqueueSystemTx(world.accountId, market, { kind: 'batch', orders: [order('BUY', 300_000n, 100n, 'GTC'), order('BUY', 301_000n, 100n, 'GTC')], cancelSlotIdxs: [], expectedOrderIds: [] });
    const outside = (setup = engineWithChain(world, tmp.dir));
    // The same journal: the blind run's ledger and history are this run's start.
    await run(world, async () => {
      await new Promise<void>((resolve) => world.clock.scheduler.schedule(() => resolve(), 200));
      const onVenue = world.model.openOrders(world.accountId, market).map((each) => each.id);
      expect(onVenue).toHaveLength(3);
      await outside.engine.start();
      await until(world, () => currentState(outside, market).slots.filter((slot) => slot !== null).length === 3, 5_000, 'the slot view');
      const slots = currentState(outside, market).slots.map((slot) => slot?.orderId ?? null);
      expect(slots.slice(0, 3)).toEqual([0, 1, 2].map((slot) => world.model.slotOrderId(world.accountId, market, slot)));
      expect(new Set(slots.slice(0, 3))).toEqual(new Set(onVenue));
      await outside.engine.stop();
    });
    expect(world.model.openOrders(world.accountId, market)).toHaveLength(0);
  });

  it('reads the balances again when a block came during the read, so a fill in that block is counted once', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const market = world.market.address;
    const quoteToken = world.market.quoteToken.address;
    const size = (human: bigint) => human * world.market.sizePrecision;
    const accountCore = world.model.info().contracts.accountCore;
    const real = createChainReader({ transport: world.venue.transport, clock: world.clock, random: seededRandom(5) }, { rpcUrl: world.network.hosts.rpcUrl!, accountCore });
    // Latency at the transport seam, made to order: the next balance read answers only after a block
    // in which another account fills the bot's resting bid, once the bot has seen that fill.
    let interrupt: (() => Promise<void>) | undefined;
    const chain: ChainReader = {
      ...real,
      async freeBalance(accountId, token) {
        const late = interrupt;
        interrupt = undefined;
        await late?.();
        return real.freeBalance(accountId, token);
      },
    };
    const bot = (setup = engineOn(world, tmp.dir, { overrides: { chain }, tuning: { accountReadMs: 2_000 } }));
    await run(world, async () => {
      await bot.engine.start();
      const rested = await bot.engine.submit(placeIntent(market, [{ side: 'BUY', price: 340_000n, size: size(2n), tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }]));
      expect(rested.status).toBe('CONFIRMED');
      await until(world, () => balancesRead(bot, world) && currentState(bot, market).orders.length === 1, 5_000, 'the first chain read and the resting bid');
      let readDone = false;
      interrupt = async () => {
        otherTrades(world, order('SELL', 340_000n, size(2n), 'IOC'));
        await until(world, () => currentState(bot, market).position === size(2n), 5_000, 'the fill');
        readDone = true;
      };
      await until(world, () => readDone, 5_000, 'the interrupted read');
      // The period's read is done well before the next one (2 s): its baseline is what stands.
      await new Promise<void>((resolve) => world.clock.scheduler.schedule(() => resolve(), 500));
      const chainTotal = world.model.balance(world.accountId, quoteToken);
      expect(currentState(bot, market).orders).toHaveLength(0);
      expect(bot.engine.balanceDisagreements()).toEqual([]);
      expect(currentState(bot, market).balances.quote!.total).toBe(chainTotal.available + chainTotal.locked);
      await bot.engine.stop();
    });
  });

  it('reads the fills of the block of its cancels before it stops: an order partly filled just before its cancel is in the position', async () => {
    // Blocks as long as a live venue's: the stop's first read of the order events is done before the block
    // that holds the fill and the cancels.
    const world = (v = await startEngineVenue({ blockMs: 400 }));
    tmp = tempJournalDir();
    const market = world.market.address;
    const size = (human: bigint) => human * world.market.sizePrecision;
    const bot = (setup = engineOn(world, tmp.dir));
    let baseBefore: { available: bigint; locked: bigint } | undefined;
    await run(world, async () => {
      await bot.engine.start();
      const rested = await bot.engine.submit(placeIntent(market, [{ side: 'BUY', price: 340_000n, size: size(2n), tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }]));
      expect(rested.status).toBe('CONFIRMED');
      await until(world, () => currentState(bot, market).orders.length === 1 && currentState(bot, market).slots.some((slot) => slot !== null), 5_000, 'the resting bid in its slot');
      // Another account takes part of the bid in the block of the stop's cancels, ahead of them: the
      // cancel still finds the rest, so nothing reverts and nothing else makes the engine read again.
      baseBefore = world.model.balance(world.accountId, world.market.baseToken.address);
      const stopping = bot.engine.stop();
      otherTrades(world, order('SELL', 340_000n, size(1n), 'IOC'));
      await stopping;
    });
    expect(world.model.openOrders(world.accountId, market)).toHaveLength(0);
    const held = world.model.balance(world.accountId, world.market.baseToken.address);
    // The venue's position moved by the fill; the bot's, read before it stopped, too.
    expect(held.available + held.locked - (baseBefore!.available + baseBefore!.locked)).toBe(size(1n) * 10n ** BigInt(world.market.baseToken.decimals) / world.market.sizePrecision);
    expect(currentState(bot, market).position).toBe(size(1n));
  });
});
