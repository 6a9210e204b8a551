/**
 * What a script says about a market, in the author's terms: books as `[price, size]` levels, public
 * trades, fills of the strategy's own orders, orders resting at the start. Amounts are units (bigint)
 * or human decimal strings converted exactly at the market's precision. The check venue
 * (check-venue.ts) turns each into real orders on the venue.
 */
import { BaseError } from '../core/base-error.ts';
import { toUnits } from '../core/units.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnMarketState } from '../strategy/strategy-context.ts';

/** Units as a bigint, or a human decimal string converted exactly at the market's precision. */
export type ScriptedAmount = bigint | string;

/** `[price, size]`, e.g. `['0.0349', '1500']` or `[349_000n, 150_000n]`. */
export type ScriptedLevel = readonly [price: ScriptedAmount, size: ScriptedAmount];

/** A whole book: the scripted market maker's orders from now until the next book. Levels in any order. */
export interface ScriptedBook {
  readonly bids: readonly ScriptedLevel[];
  readonly asks: readonly ScriptedLevel[];
}

/** A public trade: a script maker rests at `price` and a script taker takes `qty` up to that price. */
export interface ScriptedTrade {
  readonly price: ScriptedAmount;
  readonly qty: ScriptedAmount;
  /** True when the taker sold. Default false. */
  readonly isBuyerMaker?: boolean;
}

/** A fill of the own order in `slot` (default: all that remains) by a script taker. */
export interface ScriptedFill {
  readonly slot: number;
  readonly size?: ScriptedAmount;
}

/** An own order resting in a slot at the start (placed through the engine before the strategy starts). */
export interface InitialOrder {
  readonly slot: number;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Size units. */
  readonly size: bigint;
  /** Size units still open (the rest filled before the start); default `size`. */
  readonly remaining?: bigint;
}

export interface TimedIntent {
  /** Time of the emission, ms after the strategy started. */
  readonly at: number;
  readonly intent: Intent;
}

export interface RevertedIntent extends TimedIntent {
  /** `REVERTED` (the venue executed and reverted it) or `DROPPED`. */
  readonly status: 'REVERTED' | 'DROPPED';
  /** The fate's reason: the venue's `CODE: message` (`INVALID_ORDER: …`), or the status when it gave none. */
  readonly reason: string;
  /** The fate's code (`INVALID_ORDER`, `INTENT_DROPPED_BY_RELAY`…), or the status when the venue gave none. */
  readonly code: string;
}

/** An intent the engine refused (risk, kill switch) or the relay rejected: it never reached a block. */
export interface RefusedIntent extends TimedIntent {
  readonly status: 'REFUSED' | 'REJECTED';
  readonly code: string;
  readonly message: string;
}

export interface InvalidIntent extends TimedIntent {
  readonly problems: readonly string[];
}

export interface TimedState {
  /** ms after the strategy started. */
  readonly at: number;
  readonly state: OwnMarketState;
}

/** @example priceUnits('0.0349', monUsdc) // 349000n */
export function priceUnits(amount: ScriptedAmount, spec: MarketSpec): bigint {
  return typeof amount === 'bigint' ? amount : toUnits(amount, spec.pricePrecision, 'exact');
}

/** @example sizeUnits('100', monUsdc) // 10000n */
export function sizeUnits(amount: ScriptedAmount, spec: MarketSpec): bigint {
  return typeof amount === 'bigint' ? amount : toUnits(amount, spec.sizePrecision, 'exact');
}

/** A level in units. */
export interface UnitLevel {
  readonly price: bigint;
  readonly size: bigint;
}

/**
 * A scripted book in units, best first per side. Throws STRATEGY_CHECK_INVALID for a price off the
 * tick, a size out of the market's bounds, or a crossed book (the script maker's own orders would trade).
 *
 * @example bookInUnits({ bids: [['0.0349', '100']], asks: [['0.0351', '100']] }, monUsdc).bids // [{ price: 349000n, size: 10000n }]
 */
export function bookInUnits(book: ScriptedBook, spec: MarketSpec): { readonly bids: UnitLevel[]; readonly asks: UnitLevel[] } {
  const levels = (side: readonly ScriptedLevel[], name: string) =>
    side.map(([price, size]): UnitLevel => {
      const level = { price: priceUnits(price, spec), size: sizeUnits(size, spec) };
      if (level.price < 1n || level.price % spec.tickSize !== 0n) invalid(`${spec.symbol}: ${name} price ${level.price} is not on the tick ${spec.tickSize}`);
      if (level.size < spec.minSize || level.size > spec.maxSize) invalid(`${spec.symbol}: ${name} size ${level.size} is outside ${spec.minSize}..${spec.maxSize}`);
      return level;
    });
  const bids = levels(book.bids, 'bid').sort((a, b) => (a.price > b.price ? -1 : a.price < b.price ? 1 : 0));
  const asks = levels(book.asks, 'ask').sort((a, b) => (a.price < b.price ? -1 : a.price > b.price ? 1 : 0));
  if (bids[0] !== undefined && asks[0] !== undefined && bids[0].price >= asks[0].price) {
    invalid(`${spec.symbol}: the book is crossed (best bid ${bids[0].price} >= best ask ${asks[0].price})`);
  }
  return { bids, asks };
}

function invalid(message: string): never {
  throw new BaseError('STRATEGY_CHECK_INVALID', message);
}
