/**
 * Hand-built RunRecords for the invariant tests: real market specs (test/strategies/fixtures.ts),
 * real intent and state types, and a builder that keeps the record's cross-references (intent ↔
 * fate ↔ signed request ↔ final status, fill times ↔ startMs) consistent unless a test breaks one
 * on purpose.
 */
import type { RiskConfig } from '../../../src/config/run-config.ts';
import type { IntentFate } from '../../../src/execution/execution-engine.ts';
import type { FinalStatus } from '../../../src/execution/journal-record.ts';
import { MAKER_SLOTS, type ExecutionInstruction, type OrderSide, type TimeInForce } from '../../../src/protocol/constants.ts';
import type { Address, Hex } from '../../../src/protocol/encoding.ts';
import { amountScale, feeRaw, quoteRaw, type MarketSpec } from '../../../src/protocol/market-spec.ts';
import type { PackedOp } from '../../../src/protocol/packed-ops.ts';
import type { CancelAll, Intent, OrderRequest, PlaceAndCancel, ReplaceSlots } from '../../../src/strategy/intents.ts';
import type { OwnFill, OwnMarketState, OwnOrder } from '../../../src/strategy/strategy-context.ts';
import type { BlockMark, EngineSample, FeedHealthChange, ResolvedRequest, RunRecord, SignedRequest, TimedFate } from '../../../src/testing/run-record.ts';
import type { InvalidIntent, TimedIntent, TimedState } from '../../../src/testing/scripted-market.ts';
import { monUsdc, wethUsdc } from '../../strategies/fixtures.ts';

/** MON_USDC: prices in 1e-7 USDC on a tick of 10, sizes in 0.01 MON (min 1 MON), maker fee 0, taker 2 bp. */
export const MON: MarketSpec = monUsdc;
/** WETH_USDC: prices in cents, sizes in 1e-4 WETH. */
export const WETH: MarketSpec = wethUsdc;
/** Clock time of the strategy's start in every built record. */
export const START_MS = 1_767_225_600_000;
export const BLOCK_MS = 400;

/** Open limits: 1000 base a side (100_000 MON units), 20 orders a second. */
export const RISK: RiskConfig = {
  maxPosition: '1000',
  maxOrderSize: '1000',
  maxNotional: '1000000',
  priceBandBps: 500,
  maxOrdersPerSecond: 20,
  maxOpenOrders: MAKER_SLOTS,
};

// ---- intents ------------------------------------------------------------------------------------

export function order(side: OrderSide, price: bigint, size: bigint, tif: TimeInForce = 'GTC', executionInstruction: ExecutionInstruction = tif === 'GTC' ? 'POST_ONLY' : 'NONE'): OrderRequest {
  return { side, price, size, tif, executionInstruction, minSizeAfterBlock: 0n };
}

export function batch(orders: readonly OrderRequest[], cancelSlots: readonly number[] = [], market: MarketSpec = MON): PlaceAndCancel {
  return { type: 'PlaceAndCancel', purpose: 'quotes', market: market.address, cancelSlots, orders };
}

export function placeOp(slotIdx: number, side: OrderSide, price: bigint, size: bigint, postOnly = true): PackedOp {
  return { slotIdx, kind: 'place', side, postOnly, price, size, minSizeAfterBlock: 0n };
}

export function cancelOp(slotIdx: number): PackedOp {
  return { slotIdx, kind: 'cancel' };
}

export function replaceSlots(ops: readonly PackedOp[], market: MarketSpec = MON): ReplaceSlots {
  return { type: 'ReplaceSlots', purpose: 'quotes', market: market.address, ops };
}

export function cancelAll(market?: MarketSpec): CancelAll {
  return market === undefined ? { type: 'CancelAll', purpose: 'stop' } : { type: 'CancelAll', purpose: 'stop', market: market.address };
}

// ---- own orders and states ----------------------------------------------------------------------

export function ownOrder(
  slot: number,
  side: OrderSide,
  price: bigint,
  size: bigint,
  options: { readonly orderId?: bigint; readonly remaining?: bigint; readonly market?: MarketSpec } = {},
): OwnOrder {
  return { market: (options.market ?? MON).address, orderId: options.orderId ?? BigInt(100 + slot), slot, side, price, size, remaining: options.remaining ?? size };
}

export function ownState(
  orders: readonly OwnOrder[] = [],
  options: { readonly position?: bigint; readonly realizedPnl?: bigint; readonly fees?: bigint; readonly market?: MarketSpec; readonly pendingRequests?: number } = {},
): OwnMarketState {
  const slots = new Array<OwnOrder | null>(MAKER_SLOTS).fill(null);
  for (const each of orders) if (each.slot !== undefined) slots[each.slot] = each;
  return {
    market: (options.market ?? MON).address,
    slots,
    orders,
    pendingRequests: options.pendingRequests ?? 0,
    position: options.position ?? 0n,
    realizedPnl: options.realizedPnl ?? 0n,
    fees: options.fees ?? 0n,
  };
}

// ---- fills --------------------------------------------------------------------------------------

export interface FillSpec {
  readonly side: OrderSide;
  readonly size: bigint;
  readonly price: bigint;
  readonly orderId?: bigint;
  readonly liquidity?: 'maker' | 'taker';
  /** Default: the market's rate for the liquidity, as the venue charges it. */
  readonly fee?: bigint;
  readonly market?: MarketSpec;
  readonly transactionHash?: Hex;
}

/** The fee the venue charges a fill (floored pps of its quote amount). */
export function venueFee(spec: MarketSpec, price: bigint, size: bigint, liquidity: 'maker' | 'taker'): bigint {
  return feeRaw(quoteRaw(amountScale(spec), price, size), liquidity === 'taker' ? spec.takerFeePps : spec.makerFeePps);
}

// ---- the builder --------------------------------------------------------------------------------

export interface SentOptions {
  /** When the request is signed (default: the emission time). */
  readonly signedAt?: number;
  /** When the fate and the final status come (default: signedAt + 500). */
  readonly doneAt?: number;
  readonly requestId?: string;
  readonly nonce?: bigint;
  /** Default CONFIRMED. */
  readonly status?: 'CONFIRMED' | 'REVERTED' | 'DROPPED' | 'REJECTED';
}

/**
 * @example
 * const b = new RecordBuilder();
 * b.sent(100, replaceSlots([placeOp(0, 'BUY', 349_000n, 1_000n)]));
 * b.state(600, ownState([ownOrder(0, 'BUY', 349_000n, 1_000n)]));
 * const record = b.build();
 */
export class RecordBuilder {
  readonly markets: readonly MarketSpec[];
  risk: RiskConfig = RISK;
  params: unknown = {};
  durationMs = 60_000;
  maxPendingOutcomes = 64;
  readonly intents: TimedIntent[] = [];
  readonly invalid: InvalidIntent[] = [];
  readonly fates: TimedFate[] = [];
  readonly signed: SignedRequest[] = [];
  readonly resolved: ResolvedRequest[] = [];
  readonly fills: OwnFill[] = [];
  readonly openingFills: OwnFill[] = [];
  readonly states = new Map<string, TimedState[]>();
  readonly finalStates = new Map<string, OwnMarketState>();
  readonly engine: EngineSample[] = [];
  readonly blocks: BlockMark[] = [];
  readonly feedHealth: FeedHealthChange[] = [];
  killSwitch: RunRecord['killSwitch'] = undefined;
  stoppedAt: number | undefined = undefined;
  #requests = 0;
  #nonce = 1_000n;
  #txs = 0;

  constructor(markets: readonly MarketSpec[] = [MON]) {
    this.markets = markets;
  }

  /** The strategy emits `intent` at `at`; returns it (fates match intents by identity). */
  intent<I extends Intent>(at: number, intent: I): I {
    this.intents.push({ at, intent });
    return intent;
  }

  /** Emitted and found malformed by the kit: in `intents` and `invalid`, never sent. */
  invalidIntent<I extends Intent>(at: number, intent: I, problems: readonly string[]): I {
    this.intent(at, intent);
    this.invalid.push({ at, intent, problems });
    return intent;
  }

  fate(at: number, intent: Intent, fate: IntentFate): this {
    this.fates.push({ at, intent, fate });
    return this;
  }

  /** Signs a new request (the next nonce unless given); returns its id. */
  sign(at: number, options: { readonly requestId?: string; readonly nonce?: bigint } = {}): string {
    const requestId = options.requestId ?? `req-${++this.#requests}`;
    const nonce = options.nonce ?? (this.#nonce += 1n);
    if (options.nonce !== undefined && options.nonce > this.#nonce) this.#nonce = options.nonce;
    this.signed.push({ at, requestId, nonce, resend: false });
    return requestId;
  }

  resend(at: number, requestId: string, nonce?: bigint): this {
    const original = this.signed.find((request) => request.requestId === requestId && !request.resend);
    this.signed.push({ at, requestId, nonce: nonce ?? original?.nonce ?? 0n, resend: true });
    return this;
  }

  resolve(at: number, requestId: string, status: FinalStatus = 'CONFIRMED'): this {
    this.resolved.push({ at, requestId, status });
    return this;
  }

  /** The whole path of an executed intent: emitted, signed, resolved, its fate. Returns the request id. */
  sent(at: number, intent: Intent, options: SentOptions = {}): string {
    this.intent(at, intent);
    return this.execute(intent, options.signedAt ?? at, options);
  }

  /** Signs, resolves and gives a fate to an intent already emitted (or the engine's own). */
  execute(intent: Intent, signedAt: number, options: Omit<SentOptions, 'signedAt'> = {}): string {
    const requestId = this.sign(signedAt, options);
    const doneAt = options.doneAt ?? signedAt + 500;
    const status = options.status ?? 'CONFIRMED';
    this.resolve(doneAt, requestId, status);
    const fate: IntentFate =
      status === 'CONFIRMED'
        ? { status, requestId, txHash: this.#tx() }
        : status === 'REJECTED'
          ? { status, requestId, code: 'RATE_LIMITED', message: 'slow down' }
          : status === 'REVERTED'
            ? { status, requestId, txHash: this.#tx(), code: 'INVALID_ORDER', reason: 'INVALID_ORDER: test' }
            : { status, requestId, txHash: this.#tx(), code: 'INTENT_DROPPED_DEADLINE', reason: 'not executed: test' };
    this.fate(doneAt, intent, fate);
    return requestId;
  }

  /** An own fill in the block at `at` (ms after the start). */
  fill(at: number, spec: FillSpec): OwnFill {
    const fill = this.#fill(at, spec);
    this.fills.push(fill);
    return fill;
  }

  /** An own fill before the start (the opening position), `at` <= 0. */
  openingFill(at: number, spec: FillSpec): OwnFill {
    const fill = this.#fill(at, spec);
    this.openingFills.push(fill);
    return fill;
  }

  state(at: number, state: OwnMarketState, symbol = MON.symbol): this {
    const list = this.states.get(symbol) ?? [];
    list.push({ at, state });
    this.states.set(symbol, list);
    return this;
  }

  finalState(state: OwnMarketState, symbol = MON.symbol): this {
    this.finalStates.set(symbol, state);
    return this;
  }

  /** Blocks every BLOCK_MS from `from` (first at from + BLOCK_MS) through `until`. */
  blocksUntil(until: number, from = 0): this {
    for (let at = from + BLOCK_MS; at <= until; at += BLOCK_MS) this.blocks.push({ at, number: BigInt(this.blocks.length + 1) });
    return this;
  }

  sample(at: number, pendingOutcomes: number, unresolved = pendingOutcomes): this {
    this.engine.push({ at, pendingOutcomes, unresolved });
    return this;
  }

  health(at: number, stale: boolean, symbol = MON.symbol): this {
    this.feedHealth.push({ at, symbol, stale });
    return this;
  }

  kill(at: number, reason = 'drawdown 250 USDC from the peak'): this {
    this.killSwitch = { at, trip: { trigger: 'drawdown', reason, atMs: START_MS + at, details: {} } };
    return this;
  }

  stop(at: number): this {
    this.stoppedAt = at;
    return this;
  }

  build(overrides: Partial<RunRecord> = {}): RunRecord {
    const finalStates = new Map(this.finalStates);
    for (const [symbol, states] of this.states) if (!finalStates.has(symbol) && states.length > 0) finalStates.set(symbol, states[states.length - 1]!.state);
    return {
      markets: new Map(this.markets.map((spec) => [spec.symbol, spec])),
      risk: this.risk,
      params: this.params,
      durationMs: this.durationMs,
      blockMs: BLOCK_MS,
      intents: this.intents,
      invalid: this.invalid,
      fates: this.fates,
      signed: this.signed,
      fills: this.fills,
      states: this.states,
      engine: this.engine,
      killSwitch: this.killSwitch,
      stoppedAt: this.stoppedAt,
      blocks: this.blocks,
      feedHealth: this.feedHealth,
      maxPendingOutcomes: this.maxPendingOutcomes,
      finalMark: new Map(this.markets.map((spec) => [spec.symbol, undefined])),
      finalStates,
      completed: false,
      error: undefined,
      startMs: START_MS,
      openingFills: this.openingFills,
      resolved: this.resolved,
      ...overrides,
    };
  }

  #tx(): Hex {
    return `0x${(++this.#txs).toString(16).padStart(64, '0')}` as Hex;
  }

  #fill(at: number, spec: FillSpec): OwnFill {
    const market = spec.market ?? MON;
    const liquidity = spec.liquidity ?? 'maker';
    return {
      market: market.address as Address,
      orderId: spec.orderId ?? 100n,
      transactionHash: spec.transactionHash ?? this.#tx(),
      timeMs: START_MS + at,
      side: spec.side,
      size: spec.size,
      price: spec.price,
      fee: spec.fee ?? venueFee(market, spec.price, spec.size, liquidity),
      liquidity,
    };
  }
}
