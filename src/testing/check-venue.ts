/**
 * The venue of a strategy check: the real local venue in this process (the sim service behind the
 * in-process connection, src/runtime) with the check's markets, the trading wallet funded and set up
 * as `clobbot run` does it, and script accounts that make the scripted market real:
 *
 * - a **book** is the resting orders of script market makers (one account per 62 levels), all
 *   replaced in one transaction at each book step; a new book that crosses the strategy's orders
 *   trades with them, as it would on the venue. Steps closer than a block are posted one block apart.
 * - a **trade** is a script maker resting at the trade's price for the trade's size (cancelled at the
 *   end of its block) and a script taker taking that size up to that price, in the same block: the
 *   taker meets better prices first, the strategy's own orders included.
 * - a **fill** of the strategy's order in a slot is a script taker that takes everything ahead of
 *   that order (better prices, then earlier orders at its price, as the venue's queue stands when the
 *   step runs) and then the size asked: what the market must do for that order to fill.
 *
 * Script accounts are funded by the venue itself and trade through system transactions (no relay,
 * in blocks in order like every other transaction).
 */
import { Subscription } from 'rxjs';
import { BaseError } from '../core/base-error.ts';
import type { Logger } from '../core/logger.ts';
import { MAX_PRICE_UNITS, UINT32_MAX } from '../core/units.ts';
import type { VirtualClock } from '../core/virtual-clock.ts';
import type { IdSource } from '../core/ids.ts';
import { seededRandom } from '../core/random.ts';
import { simConfigSchema, simMarketOf, type SimConfig } from '../config/sim-config.ts';
import type { FaultActionInput } from '../config/fault-config.ts';
import type { VirtualConfig } from '../config/virtual-config.ts';
import { MAKER_SLOTS, type OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { WalletSigner } from '../execution/signer-source.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import { connectInProcessVenue } from '../runtime/connect-in-process-venue.ts';
import type { InProcessVenue } from '../runtime/in-process-venue.ts';
import type { PendingWork } from '../runtime/pending-work.ts';
import type { VenueConnection } from '../runtime/venue-connection.ts';
import { bookInUnits, priceUnits, sizeUnits, type ScriptedBook, type ScriptedTrade } from './scripted-market.ts';

type BookLevels = ReturnType<typeof bookInUnits>;

/** What a script account holds of every token: more than any script needs. */
const SCRIPT_FUNDS = 10n ** 40n;
/** The trading wallet's funding when the check does not say: plenty of every token (human amounts). */
const DEFAULT_FUNDING = '1000000000';
/** A book step that keeps reverting (its orders were traded meanwhile) is re-posted this often. */
const BOOK_RETRIES = 5;

export interface CheckVenueMarket {
  readonly spec: MarketSpec;
  /** The venue's background order flow on this market (the `flow` of a sim config market). Default none. */
  readonly flow?: Readonly<Record<string, unknown>>;
}

export interface CheckVenueOptions {
  readonly markets: readonly CheckVenueMarket[];
  readonly clock: VirtualClock;
  readonly wallet: WalletSigner;
  /** A block every this many ms. */
  readonly blockMs: number;
  readonly latency: VirtualConfig['latency'];
  /** The trading wallet's balances, human amounts by token symbol. Default plenty of every token. */
  readonly funding?: Readonly<Record<string, string>>;
  readonly seed: number;
  readonly pending: PendingWork;
  readonly ids: IdSource;
  readonly logger: Logger;
}

export interface CheckVenue {
  readonly connection: VenueConnection;
  readonly model: SimVenueModel;
  /** Replaces the script market makers' orders on `spec` with `book` (in the next block they can use). */
  postBook(spec: MarketSpec, book: ScriptedBook): void;
  /** A public trade in the next block. */
  postTrade(spec: MarketSpec, trade: ScriptedTrade): Hex[];
  /** A script taker that reaches the trading account's order in `slot` and fills `size` of it (default all). */
  fillSlot(spec: MarketSpec, slot: number, size?: bigint): { readonly orderId: bigint; readonly amount: bigint; readonly txHash: Hex };
  /** The block number of a system transaction's outcome, once its block executed (undefined: not yet). */
  executed(txHash: Hex): bigint | undefined;
  /** True while a book step waits for an earlier one (or its retry) to execute. */
  booksPending(): boolean;
  /** A problem the venue side found (a book that could not be posted), thrown by the next step. */
  problem(): BaseError | undefined;
  /** A fault of the connection, now (the venue's one fault model: src/sim/fault-model.ts). */
  applyFault(action: FaultActionInput): void;
  stop(): void;
}

function invalid(message: string): BaseError {
  return new BaseError('STRATEGY_CHECK_INVALID', message);
}

/**
 * The sim config of a check: its markets and their tokens, no flow unless asked, no faults. Throws
 * STRATEGY_CHECK_INVALID when the specs do not make a venue (a symbol not `BASE_QUOTE`, a token twice).
 *
 * @example const sim = checkSimConfig({ markets: [{ spec: monUsdc }], blockMs: 400 });
 */
export function checkSimConfig(options: Pick<CheckVenueOptions, 'markets' | 'blockMs' | 'funding'>): SimConfig {
  const tokens = new Map<Address, MarketSpec['baseToken']>();
  for (const { spec } of options.markets) for (const token of [spec.baseToken, spec.quoteToken]) tokens.set(token.address.toLowerCase() as Address, token);
  const parsed = simConfigSchema.safeParse({
    blockMs: options.blockMs,
    tokens: [...tokens.values()].map((token) => ({ symbol: token.symbol, address: token.address.toLowerCase(), decimals: token.decimals })),
    markets: options.markets.map(({ spec, flow }) => ({ ...simMarketOf(spec), ...(flow === undefined ? {} : { flow }) })),
    funding: { default: options.funding ?? Object.fromEntries([...tokens.values()].map((token) => [token.symbol, DEFAULT_FUNDING])) },
  });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new BaseError('STRATEGY_CHECK_INVALID', `the check's markets do not make a venue: ${issues.join('; ')}`, { details: { issues } });
  }
  return parsed.data;
}

/** A script account's owner address: `0x5c…` and its number. */
const scriptOwner = (n: number): Address => `0x5c${n.toString(16).padStart(38, '0')}` as Address;

const order = (side: OrderSide, price: bigint, quantity: bigint, tif: 'GTC' | 'IOC', minSizeAfterBlock = 0n): OrderIntent => ({
  side,
  price,
  quantity,
  tif,
  executionInstruction: 'NONE',
  minSizeAfterBlock,
});

/** Taker orders for `size` at `price`, each within the market's largest order. */
function takerOrders(spec: MarketSpec, side: OrderSide, price: bigint, size: bigint): OrderIntent[] {
  const out: OrderIntent[] = [];
  for (let rest = size; rest > 0n; ) {
    const part = rest > spec.maxSize ? spec.maxSize : rest;
    out.push(order(side, price, part, 'IOC'));
    rest -= part;
  }
  return out;
}

/**
 * Starts the check's venue and readies the trading wallet on it (run it on the virtual clock).
 *
 * @example
 * const venue = await createCheckVenue({ markets: [{ spec: monUsdc }], clock, wallet, blockMs: 400, latency, seed: 1, pending, ids, logger });
 * venue.postBook(monUsdc, { bids: [['0.0349', '5000']], asks: [['0.0351', '5000']] });
 */
export async function createCheckVenue(options: CheckVenueOptions): Promise<CheckVenue> {
  const { clock, seed } = options;
  const sim = checkSimConfig(options);
  const { venue, connection }: { venue: InProcessVenue; connection: VenueConnection } = await connectInProcessVenue({
    sim,
    simFile: 'the check',
    clock,
    wallet: options.wallet,
    symbols: options.markets.map(({ spec }) => spec.symbol),
    latency: options.latency,
    random: seededRandom(seed ^ 0x51e),
    secrets: seededRandom(seed ^ 0x5ec),
    latencyRandom: seededRandom(seed ^ 0x1a7),
    clientRandom: seededRandom(seed ^ 0xc11),
    pending: options.pending,
    backgroundFlow: options.markets.some((market) => market.flow !== undefined),
    seed,
    ids: options.ids,
    logger: options.logger,
  });
  const model = venue.service.venue;
  const accounts = new Map<number, bigint>();
  const account = (n: number): bigint => {
    let id = accounts.get(n);
    if (id === undefined) {
      for (const token of sim.tokens) id = model.fund(scriptOwner(n), token.address, SCRIPT_FUNDS);
      accounts.set(n, id!);
    }
    return id!;
  };
  // Accounts 0 and 1 take and make trades; 2 takes to fill; 16 and up make the books.
  const TRADE_TAKER = 0;
  const TRADE_MAKER = 1;
  const FILL_TAKER = 2;
  const BOOK_MAKERS = 16;

  const outcomes = new Map<Hex, bigint>();
  const reverted = new Set<Hex>();
  const subscription = new Subscription();
  subscription.add(
    model.systemOutcomes$.subscribe((outcome) => {
      if (outcome.status === 'CONFIRMED') outcomes.set(outcome.txHash, outcome.blockNumber ?? 0n);
      else reverted.add(outcome.txHash);
    }),
  );

  /** Per market: the book step in flight (its txs and levels), the one waiting for it, the retries. */
  interface BookState {
    inFlight: Hex[];
    posted: BookLevels | undefined;
    waiting: BookLevels | undefined;
    retries: number;
    makers: number;
  }
  const books = new Map<Address, BookState>();
  let failure: BaseError | undefined;

  const enqueueBook = (spec: MarketSpec, state: BookState, levels: BookLevels) => {
    const all = [...levels.bids.map((level) => order('BUY', level.price, level.size, 'GTC')), ...levels.asks.map((level) => order('SELL', level.price, level.size, 'GTC'))];
    state.makers = Math.max(state.makers, Math.ceil(all.length / MAKER_SLOTS));
    state.posted = levels;
    state.inFlight = [];
    for (let k = 0; k < state.makers; k++) {
      const id = account(BOOK_MAKERS + k);
      const held = model.openOrders(id, spec.address);
      const orders = all.slice(k * MAKER_SLOTS, (k + 1) * MAKER_SLOTS);
      if (held.length === 0 && orders.length === 0) continue;
      const cancels = { cancelSlotIdxs: held.map((resting) => resting.slot), expectedOrderIds: held.map((resting) => resting.id) };
      state.inFlight.push(model.enqueueSystemTx(id, spec.address, { kind: 'batch', ...cancels, orders }));
    }
  };

  // A book step waits for the previous one of its market (the newest waiting wins); a step that
  // reverted (a script order traded earlier in its block) is posted again from the state after it.
  subscription.add(
    model.blocks$.subscribe(() => {
      for (const [address, state] of books) {
        if (state.inFlight.length === 0 || state.inFlight.some((hash) => !outcomes.has(hash) && !reverted.has(hash))) continue;
        const failed = state.inFlight.some((hash) => reverted.has(hash));
        state.inFlight = [];
        const spec = model.marketByAddress(address)!;
        if (state.waiting !== undefined) {
          const next = state.waiting;
          state.waiting = undefined;
          state.retries = 0;
          enqueueBook(spec, state, next);
        } else if (failed) {
          state.retries += 1;
          if (state.retries > BOOK_RETRIES) failure ??= invalid(`a book step of ${spec.symbol} reverted ${BOOK_RETRIES} times in a row`);
          else enqueueBook(spec, state, state.posted!);
        }
      }
    }),
  );

  return {
    // No chain reads: each scenario's account is new, and the invariants read the venue's own truth;
    // the reads (the 62 slots at start, balances every 30 s) would only cost the kit time.
    connection: { ...connection, accountCore: undefined },
    model,
    postBook(spec, book) {
      const levels = bookInUnits(book, spec);
      let state = books.get(spec.address);
      if (state === undefined) {
        state = { inFlight: [], posted: undefined, waiting: undefined, retries: 0, makers: 0 };
        books.set(spec.address, state);
      }
      if (state.inFlight.length > 0) state.waiting = levels;
      else {
        state.retries = 0;
        enqueueBook(spec, state, levels);
      }
    },
    postTrade(spec, trade) {
      const price = priceUnits(trade.price, spec);
      const qty = sizeUnits(trade.qty, spec);
      if (price < 1n || price > MAX_PRICE_UNITS || price % spec.tickSize !== 0n) throw invalid(`${spec.symbol}: trade price ${price} is not on the tick ${spec.tickSize}`);
      if (qty < spec.minSize || qty > spec.maxSize) throw invalid(`${spec.symbol}: trade size ${qty} is outside ${spec.minSize}..${spec.maxSize}`);
      const takerSells = trade.isBuyerMaker ?? false;
      // The maker's remainder is cancelled at the end of its block (open size below minSizeAfterBlock).
      const maker = model.enqueueSystemTx(account(TRADE_MAKER), spec.address, {
        kind: 'batch',
        cancelSlotIdxs: [],
        expectedOrderIds: [],
        orders: [order(takerSells ? 'BUY' : 'SELL', price, qty, 'GTC', UINT32_MAX)],
      });
      const taker = model.enqueueSystemTx(account(TRADE_TAKER), spec.address, {
        kind: 'batch',
        cancelSlotIdxs: [],
        expectedOrderIds: [],
        orders: takerOrders(spec, takerSells ? 'SELL' : 'BUY', price, qty),
      });
      return [maker, taker];
    },
    fillSlot(spec, slot, size) {
      const own = model.openOrders(connection.accountId, spec.address).find((resting) => resting.slot === slot);
      if (own === undefined) throw invalid(`slot ${slot} of ${spec.symbol} holds no order to fill`);
      const amount = size ?? own.remaining;
      if (amount < 1n || amount > own.remaining) throw invalid(`cannot fill ${amount} of the order in slot ${slot} of ${spec.symbol}: ${own.remaining} remains`);
      const ahead = model.sizeAhead(spec.address, own.id) ?? 0n;
      if (ahead + amount < spec.minSize) throw invalid(`a fill of ${amount} in slot ${slot} of ${spec.symbol} needs a taker order below the market's minimum size ${spec.minSize}`);
      const txHash = model.enqueueSystemTx(account(FILL_TAKER), spec.address, {
        kind: 'batch',
        cancelSlotIdxs: [],
        expectedOrderIds: [],
        orders: takerOrders(spec, own.side === 'BUY' ? 'SELL' : 'BUY', own.price, ahead + amount),
      });
      return { orderId: own.id, amount, txHash };
    },
    executed: (txHash) => outcomes.get(txHash),
    booksPending: () => [...books.values()].some((state) => state.inFlight.length > 0 || state.waiting !== undefined),
    problem: () => failure,
    applyFault: (action) => venue.service.faults.apply(action),
    stop() {
      subscription.unsubscribe();
      venue.stop();
    },
  };
}
