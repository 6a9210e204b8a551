/**
 * The own state a strategy starts from, made real before it starts: each market's `book` posted by
 * the script market maker and shown on the feed; the `orders` placed through the engine (post-only,
 * in their slots) and partly filled by a script taker where `remaining` says so; the `position`
 * completed by an own post-only order at `entryPrice` that a script taker fills. The harness starts
 * the strategy once the engine's state shows all of it and the feeds show the blocks that did it.
 */
import { BaseError } from '../core/base-error.ts';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { ExecutionEngine, IntentFate } from '../execution/execution-engine.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnMarketState } from '../strategy/strategy-context.ts';
import type { CheckVenue } from './check-venue.ts';
import type { Waits } from './check-rig.ts';
import { bookInUnits, priceUnits, type InitialOrder, type ScriptedAmount, type ScriptedBook } from './scripted-market.ts';

/** A market of the strategy under test, with its own state at the start. */
export interface HarnessMarket {
  readonly spec: MarketSpec;
  /** The script market maker's book when the strategy starts. */
  readonly book?: ScriptedBook;
  /** Size units, signed: the position when the strategy starts. Default 0. */
  readonly position?: bigint;
  /** The price the position is bought or sold at. Default the start book's mid, on the tick (buys down, sells up). */
  readonly entryPrice?: ScriptedAmount;
  /** Own orders resting at the start. */
  readonly orders?: readonly InitialOrder[];
  /** The venue's background order flow on this market (a sim config market's `flow`). Default none. */
  readonly flow?: Readonly<Record<string, unknown>>;
}

function invalid(message: string): BaseError {
  return new BaseError('STRATEGY_CHECK_INVALID', message);
}

function describeFate(fate: IntentFate): string {
  switch (fate.status) {
    case 'REVERTED':
    case 'DROPPED':
      return `${fate.status}: ${fate.reason ?? 'no reason'}`;
    case 'REJECTED':
    case 'REFUSED':
      return `${fate.status} ${fate.code}: ${fate.message}`;
    case 'NOTHING_TO_DO':
      return `${fate.status}: ${fate.reason}`;
    default:
      return fate.status;
  }
}

async function submitted(engine: ExecutionEngine, intent: Intent, what: string): Promise<void> {
  const fate = await engine.submit(intent);
  if (fate.status !== 'CONFIRMED') throw invalid(`${what} did not confirm: ${describeFate(fate)}`);
}

function entryPrice(market: HarnessMarket, buy: boolean): bigint {
  const { spec } = market;
  if (market.entryPrice !== undefined) return priceUnits(market.entryPrice, spec);
  const book = market.book === undefined ? undefined : bookInUnits(market.book, spec);
  const bid = book?.bids[0]?.price;
  const ask = book?.asks[0]?.price;
  if (bid === undefined || ask === undefined) throw invalid(`${spec.symbol}: a position at the start needs an entryPrice or a book with both sides`);
  const mid = (bid + ask) / 2n;
  const onTick = (mid / spec.tickSize) * spec.tickSize;
  return buy || onTick === mid ? onTick : onTick + spec.tickSize;
}

const placeOp = (slotIdx: number, order: Pick<InitialOrder, 'side' | 'price' | 'size'>): PackedOp => ({
  slotIdx,
  kind: 'place',
  side: order.side,
  postOnly: true,
  price: order.price,
  size: order.size,
  minSizeAfterBlock: 0n,
});

export interface ReadyMarketsParameters {
  readonly markets: readonly HarnessMarket[];
  readonly venue: CheckVenue;
  readonly engine: ExecutionEngine;
  readonly waits: Waits;
  /** The engine's latest own state per symbol. */
  readonly latest: ReadonlyMap<string, OwnMarketState>;
  readonly bookShown: (spec: MarketSpec) => Promise<void>;
  readonly filled: (spec: MarketSpec, slot: number, size: bigint) => Promise<void>;
  readonly timeoutMs: number;
}

/**
 * Books, orders and positions of the start, each market in turn; resolves once the engine's state
 * shows them. Throws STRATEGY_CHECK_INVALID when the venue refuses any of it.
 *
 * @example await readyMarkets({ markets, venue, engine, waits, latest, bookShown, filled, timeoutMs: 30_000 });
 */
export async function readyMarkets(params: ReadyMarketsParameters): Promise<void> {
  const { venue, engine, waits, latest } = params;
  for (const market of params.markets) if (market.book !== undefined) venue.postBook(market.spec, market.book);
  for (const market of params.markets) if (market.book !== undefined) await params.bookShown(market.spec);

  for (const market of params.markets) {
    const { spec } = market;
    const orders = market.orders ?? [];
    const slots = new Set<number>();
    for (const order of orders) {
      if (!Number.isInteger(order.slot) || order.slot < 0 || order.slot >= MAKER_SLOTS || slots.has(order.slot)) {
        throw invalid(`${spec.symbol}: initial order in slot ${order.slot}: not a free maker slot 0..${MAKER_SLOTS - 1}`);
      }
      slots.add(order.slot);
    }
    if (orders.length > 0) {
      await submitted(engine, { type: 'ReplaceSlots', purpose: 'check-setup', market: spec.address, ops: orders.map((order) => placeOp(order.slot, order)) }, `${spec.symbol}: the initial orders`);
    }
    let prefilled = 0n;
    for (const order of orders) {
      const part = order.size - (order.remaining ?? order.size);
      if (part < 0n) throw invalid(`${spec.symbol}: initial order in slot ${order.slot} has more remaining than its size`);
      if (part === 0n) continue;
      await params.filled(spec, order.slot, part);
      prefilled += order.side === 'BUY' ? part : -part;
    }
    const missing = (market.position ?? 0n) - prefilled;
    if (missing !== 0n) {
      const slot = [...Array(MAKER_SLOTS).keys()].reverse().find((candidate) => !slots.has(candidate))!;
      const buy = missing > 0n;
      const size = buy ? missing : -missing;
      if (size < spec.minSize || size > spec.maxSize) throw invalid(`${spec.symbol}: a position of ${market.position} needs an order of ${size}, outside ${spec.minSize}..${spec.maxSize}`);
      await submitted(engine, { type: 'ReplaceSlots', purpose: 'check-setup', market: spec.address, ops: [placeOp(slot, { side: buy ? 'BUY' : 'SELL', price: entryPrice(market, buy), size })] }, `${spec.symbol}: the order making the position`);
      await params.filled(spec, slot, size);
    }
    const ready = () => {
      const state = latest.get(spec.symbol);
      if (state === undefined || state.position !== (market.position ?? 0n) || state.pendingRequests > 0) return false;
      return orders.every((order) => {
        const own = state.slots[order.slot];
        return own !== null && own !== undefined && own.orderId !== undefined && own.remaining === (order.remaining ?? order.size);
      });
    };
    await waits.until(ready, `the start state of ${spec.symbol} in the engine`, params.timeoutMs);
  }
  // The feeds catch up with everything the setup did, so the strategy starts from the market as it is.
  for (const market of params.markets) await params.bookShown(market.spec);
}
