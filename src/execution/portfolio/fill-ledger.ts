/**
 * One market's fill ledger: every fill of the account's orders counted once (by `fillKey`), its
 * fee, and what the fills add up to: the position, cost basis and realized PnL (average cost,
 * `average-cost.ts`), fees, volumes and token flows, on top of what earlier runs counted (the
 * journal's ledger checkpoint, `account-ledger.ts`).
 *
 * Separate from the portfolio because it needs nothing of orders or slots: the portfolio tells it a
 * fill and whether it took liquidity (which only the order registry can know, and may learn late),
 * and it keeps the totals and reports each token movement to the balances (`FlowSink`).
 *
 * Fills are accounted in a canonical order (block time, transaction hash, order id, then decreasing
 * remaining size), so the same fills learned in another order give the same position. A fill pays
 * the taker fee when it took liquidity, else the maker fee, `feeRaw(quote, pps)` floored like the
 * venue; fees and realized PnL are raw quote units, realized/unrealized gross of fees and
 * `net = realized + unrealized - fees`.
 */
import { BaseError } from '../../core/base-error.ts';
import type { Address } from '../../protocol/encoding.ts';
import { feeRaw, type AmountScale, type MarketSpec } from '../../protocol/market-spec.ts';
import type { OwnFill } from '../../strategy/strategy-context.ts';
import { countedBy, EMPTY_LEDGER, extendLedger, type LedgerCheckpoint } from '../account-ledger.ts';
import { applyFill, FLAT_POSITION, unrealizedPnl, type CostPosition } from '../average-cost.ts';

/**
 * One fill of one of the account's orders, from a `trade` event: what strategies see of it
 * (`OwnFill`; its liquidity and fee as known when it was reported) and the ledger's amounts.
 */
export interface Fill extends OwnFill {
  /** De-duplication key: `transactionHash:orderId:filledSize:updatedSize` (see `fillKey`). */
  readonly key: string;
  /** 1e18 fixed point (rule 4). */
  readonly fillPrice: bigint;
  /** Raw quote units (before fees). */
  readonly quote: bigint;
  /** Raw base units (`baseFilled`, rules 2 and 6). */
  readonly base: bigint;
  /** The order's open size after the fill (`updatedSize`), size units. */
  readonly remaining: bigint;
}

/** What a trade event says of a fill; its liquidity and fee are the ledger's. */
export type FillFacts = Omit<Fill, 'liquidity' | 'fee'>;

/** A counted fill: its facts, and its liquidity and fee as known now. */
export interface FillRecord {
  readonly fill: FillFacts;
  liquidity: 'maker' | 'taker';
  fee: bigint;
}

/** The ledger an earlier run left: position, cost basis, realized PnL and fees, and its fill count. */
export interface CarriedLedger {
  readonly position: bigint;
  readonly costBasis: bigint;
  readonly realizedPnl: bigint;
  readonly fees: bigint;
  readonly fills: number;
}

export interface PnL {
  /** Raw quote units, gross of fees. */
  readonly realized: bigint;
  /** Raw quote units at the given mark; 0 when flat. */
  readonly unrealized: bigint;
  readonly fees: bigint;
  /** realized + unrealized - fees. */
  readonly net: bigint;
}

/** Where the ledger reports a token movement of a fill (raw units, at the fill's block time). */
export type FlowSink = (token: Address, delta: bigint, timeMs: number) => void;

export const NOTHING_CARRIED: CarriedLedger = Object.freeze({ position: 0n, costBasis: 0n, realizedPnl: 0n, fees: 0n, fills: 0 });

/**
 * The key that de-duplicates fills. A trade event is one fill of one order in one transaction;
 * the order's open size after it (`updatedSize`) strictly decreases from fill to fill, so it
 * tells apart two equal fills of one order in one transaction (a taker matching two makers of the
 * same size), which `transactionHash + orderId + filledSize` alone would merge.
 */
export function fillKey(transactionHash: string, orderId: bigint | string, filledSize: bigint | string, updatedSize: bigint | string): string {
  return `${transactionHash.toLowerCase()}:${orderId}:${filledSize}:${updatedSize}`;
}

/** The published fill of a record: its facts with its liquidity and fee as they stand now. */
export function fillOf(record: FillRecord): Fill {
  return { ...record.fill, liquidity: record.liquidity, fee: record.fee };
}

function compareFills(a: FillFacts, b: FillFacts): number {
  if (a.timeMs !== b.timeMs) return a.timeMs - b.timeMs;
  if (a.transactionHash !== b.transactionHash) return a.transactionHash < b.transactionHash ? -1 : 1;
  if (a.orderId !== b.orderId) return a.orderId < b.orderId ? -1 : 1;
  if (a.remaining !== b.remaining) return a.remaining > b.remaining ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** [base, quote] raw flows of a fill, fee included. */
function fillFlows(record: FillRecord): readonly [bigint, bigint] {
  const { side, base, quote } = record.fill;
  return side === 'BUY' ? [base, -(quote + record.fee)] : [-base, quote - record.fee];
}

export class FillLedger {
  readonly #spec: MarketSpec;
  readonly #scale: AmountScale;
  readonly #flow: FlowSink;
  readonly #fills = new Map<string, FillRecord>();
  /** Fills in canonical order (those the carried ledger counted are not here). */
  readonly #ordered: FillRecord[] = [];
  /** What earlier runs counted (the journal's ledger). */
  #carried: LedgerCheckpoint = EMPTY_LEDGER;
  /** Keys of fills the carried ledger counted, seen in this run's events: they change orders, not the ledger. */
  readonly #counted = new Set<string>();
  /** The carried position plus the fills in `#ordered`. */
  #position: CostPosition = FLAT_POSITION;
  #fees = 0n;
  #bought = 0n;
  #sold = 0n;
  #quotePaid = 0n;
  #quoteReceived = 0n;
  #baseFlow = 0n;
  #quoteFlow = 0n;

  constructor(spec: MarketSpec, scale: AmountScale, flow: FlowSink) {
    this.#spec = spec;
    this.#scale = scale;
    this.#flow = flow;
  }

  /** Whether the fill of `key` was seen already (counted in this run, or by the carried ledger). */
  has(key: string): boolean {
    return this.#fills.has(key) || this.#counted.has(key);
  }

  /** The fill of `key` counted in this run. */
  get(key: string): FillRecord | undefined {
    return this.#fills.get(key);
  }

  /**
   * Whether the carried ledger counted the fill of `key` at block time `timeMs`: it is then
   * remembered as seen and not counted again.
   */
  countedBefore(key: string, timeMs: number): boolean {
    if (!countedBy(this.#carried, timeMs, key)) return false;
    this.#counted.add(key);
    return true;
  }

  /** Counts a new fill (not `has`) with its liquidity as known now. */
  add(fill: FillFacts, liquidity: 'maker' | 'taker'): FillRecord {
    const record: FillRecord = { fill, liquidity, fee: this.#feeOf(fill, liquidity) };
    this.#fills.set(fill.key, record);
    const last = this.#ordered[this.#ordered.length - 1];
    if (last === undefined || compareFills(last.fill, fill) <= 0) {
      this.#ordered.push(record);
      this.#position = applyFill(this.#position, fill.side, fill.size, fill.quote);
    } else {
      let lo = 0;
      let hi = this.#ordered.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareFills(this.#ordered[mid]!.fill, fill) <= 0) lo = mid + 1;
        else hi = mid;
      }
      this.#ordered.splice(lo, 0, record);
      let position = this.#carried.position;
      for (const each of this.#ordered) position = applyFill(position, each.fill.side, each.fill.size, each.fill.quote);
      this.#position = position;
    }
    if (fill.side === 'BUY') {
      this.#bought += fill.size;
      this.#quotePaid += fill.quote;
    } else {
      this.#sold += fill.size;
      this.#quoteReceived += fill.quote;
    }
    this.#fees += record.fee;
    const [base, quote] = fillFlows(record);
    this.#baseFlow += base;
    this.#quoteFlow += quote;
    this.#flow(this.#spec.baseToken.address, base, fill.timeMs);
    this.#flow(this.#spec.quoteToken.address, quote, fill.timeMs);
    return record;
  }

  /** Sets a counted fill's liquidity (learned late: its order's creation came after it), moving the fee by the difference. */
  setLiquidity(record: FillRecord, liquidity: 'maker' | 'taker'): void {
    const fee = this.#feeOf(record.fill, liquidity);
    const delta = fee - record.fee;
    record.liquidity = liquidity;
    record.fee = fee;
    if (delta === 0n) return;
    this.#fees += delta;
    this.#quoteFlow -= delta;
    this.#flow(this.#spec.quoteToken.address, -delta, record.fill.timeMs);
  }

  /**
   * Starts the ledger from what earlier runs counted (the journal's ledger checkpoint). Throws
   * PORTFOLIO_LEDGER_LATE once a fill was seen.
   */
  carry(checkpoint: LedgerCheckpoint): void {
    if (this.#ordered.length > 0 || this.#counted.size > 0) {
      throw new BaseError('PORTFOLIO_LEDGER_LATE', `the ledger of ${this.#spec.symbol} can be carried over only before its first fill`, {
        details: { market: this.#spec.address },
      });
    }
    this.#carried = checkpoint;
    this.#position = checkpoint.position;
    this.#fees = checkpoint.fees;
  }

  /** The checkpoint of the carried ledger and this run's fills, horizon at `horizonMs` (block time). */
  checkpoint(horizonMs: number): LedgerCheckpoint {
    return extendLedger(
      this.#carried,
      this.#ordered.map(({ fill, fee }) => ({ key: fill.key, timeMs: fill.timeMs, side: fill.side, size: fill.size, quote: fill.quote, fee })),
      horizonMs,
    );
  }

  /** This run's fills in canonical order. */
  fills(): readonly Fill[] {
    return this.#ordered.map(fillOf);
  }

  /** Realized, unrealized (at `mark`, price units; 0 without one) and fees, raw quote units. */
  pnl(mark: bigint | undefined): PnL {
    const position = this.#position;
    const unrealized = mark === undefined || position.size === 0n ? 0n : unrealizedPnl(this.#scale, position, mark);
    return { realized: position.realized, unrealized, fees: this.#fees, net: position.realized + unrealized - this.#fees };
  }

  /** Raw units of `token` this run's fills with a block time at or before `asOfMs` moved, fees included. */
  flowThrough(token: Address, asOfMs: number): bigint {
    const isBase = this.#spec.baseToken.address === token;
    const isQuote = this.#spec.quoteToken.address === token;
    let total = 0n;
    if (!isBase && !isQuote) return total;
    for (const record of this.#ordered) {
      if (record.fill.timeMs > asOfMs) continue;
      const [base, quote] = fillFlows(record);
      total += (isBase ? base : 0n) + (isQuote ? quote : 0n);
    }
    return total;
  }

  #feeOf(fill: FillFacts, liquidity: 'maker' | 'taker'): bigint {
    return feeRaw(fill.quote, liquidity === 'taker' ? this.#spec.takerFeePps : this.#spec.makerFeePps);
  }

  /** The carried position plus this run's fills. */
  get position(): CostPosition {
    return this.#position;
  }

  /** Raw quote units paid in fees, carried over included. */
  get fees(): bigint {
    return this.#fees;
  }

  /** What earlier runs left. */
  get carried(): CarriedLedger {
    if (this.#carried === EMPTY_LEDGER) return NOTHING_CARRIED;
    const { position, fees, fills } = this.#carried;
    return { position: position.size, costBasis: position.basis, realizedPnl: position.realized, fees, fills };
  }

  /** Fills counted in this run. */
  get fillCount(): number {
    return this.#ordered.length;
  }

  /** This run's size units bought and sold; raw quote paid and received (before fees). */
  volume(): { readonly bought: bigint; readonly sold: bigint; readonly quotePaid: bigint; readonly quoteReceived: bigint } {
    return { bought: this.#bought, sold: this.#sold, quotePaid: this.#quotePaid, quoteReceived: this.#quoteReceived };
  }

  /** Raw units this run's fills moved: base, and quote including fees. */
  flows(): { readonly base: bigint; readonly quote: bigint } {
    return { base: this.#baseFlow, quote: this.#quoteFlow };
  }
}
