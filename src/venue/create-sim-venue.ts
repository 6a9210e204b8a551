/**
 * The simulated venue, composed: the catalog of tokens and markets, the matching engine, the signer
 * registry, the relay, the chain that orders and executes transactions in blocks, and the histories
 * that market data and user data are read from.
 *
 * Time is the clock's (blocks on its scheduler, nonces and deadlines against its `now`), so the same
 * venue runs on wall time behind `clobbot sim` and on virtual time in tests and backtests.
 *
 * Why one file of this size: it is the composition of those parts, each in a module of its own; what
 * stays here is the wiring between them (which transaction goes where, which events feed which
 * history), which reads best in one place.
 */
import { Subject } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { fromUnits, toUnits } from '../core/units.ts';
import type { SimConfig } from '../config/sim-config.ts';
import { MarketDataLimits, type OrderbookState } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { Depth } from '../protocol/market-data.ts';
import { Chain, type BlockHeader, type ChainTx, type ProducedBlock } from './chain.ts';
import { MarketHistory, type TopLevel } from './market-history.ts';
import { MatchingEngine } from './matching-engine.ts';
import type { DepthSnapshot } from './order-book.ts';
import { OrderHistory, type LogContext } from './order-history.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { startBackgroundFlow, type BackgroundFlow } from './background-flow.ts';
import { computeQuote, engineQuoteBooks } from './quote-engine.ts';
import { RelayExecutor } from './relay-executor.ts';
import { SignerRegistry } from './signer-registry.ts';
import type { BlockInfo, RelaySubmission, SimVenueModel, SystemTxBody, TxOutcome, TxReceipt } from './sim-venue.ts';
import { createVenueCatalog } from './venue-catalog.ts';
import type { VenueEvent } from './venue-events.ts';
import { executeVenueTx, type QueuedTx, type VenueTx } from './venue-transaction.ts';
import { systemTxHashes } from './venue-hashes.ts';
import { withOutsideLiquidity, type OutsideLiquidity } from './outside-liquidity.ts';

/** The `from` of system transactions (ours: keccak256("clobbot.sim.system")). */
export const SYSTEM_SENDER: Address = '0xa9d51c5a44cdf1858ed4ff57258a196fac97a50e';
/** Levels per side kept in each block's depth snapshot: the largest depth `limit`. */
const SNAPSHOT_LEVELS = MarketDataLimits.depth.max;

/** The book of every market after a block (markets never touched are absent: empty). */
type DepthBooks = ReadonlyMap<Address, DepthSnapshot>;

export interface CreateSimVenueParameters {
  readonly config: SimConfig;
  readonly clock: Clock;
  /**
   * Runs the seeded background order flow of every market with a `flow` config while the venue is
   * started (default false: tests that assert exact books start without it).
   */
  readonly backgroundFlow?: boolean;
  /** The run seed (`clobbot sim --seed`), mixed into each market's own flow seed. Default 0. */
  readonly seed?: number;
  /** Backtests: the recorded market that relayed transactions meet besides the venue's own book (outside-liquidity.ts). */
  readonly outsideLiquidity?: OutsideLiquidity;
}

function blockInfo(header: BlockHeader): BlockInfo {
  return { number: header.number, hash: header.hash, timestamp: header.timestamp, transactions: header.transactions };
}

/** The levels of one side of a block's book as formatted so far (best first). */
interface FormattedSide {
  readonly levels: readonly (readonly [bigint, bigint])[];
  /** Whose precisions made the strings. */
  readonly market: MarketSpec;
  readonly done: [string, string][];
  /** The side formatted before this one, whose unchanged levels this one reuses, and where in it the next level is sought. */
  previous: FormattedSide | undefined;
  cursor: number;
}

/**
 * Human-readable levels of a side of a block's book, formatted once and shared by every depth read
 * of it. Keyed by the side's array: the engine shares a side that did not change between blocks.
 */
const formattedSides = new WeakMap<readonly (readonly [bigint, bigint])[], FormattedSide>();
/** The side of each market formatted last: the next block's book repeats most of its levels, whose strings it reuses. */
const latestFormatted = { bids: new Map<Address, FormattedSide>(), asks: new Map<Address, FormattedSide>() };

/** A side of a new block's book to format, following the side formatted last. */
function startSide(levels: readonly (readonly [bigint, bigint])[], side: 'bids' | 'asks', market: MarketSpec): FormattedSide {
  const latest = latestFormatted[side];
  let previous = latest.get(market.address);
  // Only one side back: a chain of older sides would stay alive.
  if (previous !== undefined) previous.previous = undefined;
  // The precisions make the strings (venues of tests may share an address).
  if (previous !== undefined && (previous.market.pricePrecision !== market.pricePrecision || previous.market.sizePrecision !== market.sizePrecision)) {
    previous = undefined;
  }
  const fresh: FormattedSide = { levels, market, done: [], previous, cursor: 0 };
  latest.set(market.address, fresh);
  return fresh;
}

/** Exported for its test. */
export function formattedLevels(book: DepthSnapshot, side: 'bids' | 'asks', market: MarketSpec, limit: number): [string, string][] {
  let state = formattedSides.get(book[side]);
  if (state === undefined || state.market !== market) {
    state = startSide(book[side], side, market);
    formattedSides.set(book[side], state);
  }
  const { levels, done } = state;
  const isBid = side === 'bids';
  for (let i = done.length; i < Math.min(limit, levels.length); i++) {
    const level = levels[i]!;
    const price = level[0];
    const size = level[1];
    // Both sides are in wire order: walk the previous one to this price.
    const previous = state.previous;
    let reused: [string, string] | undefined;
    if (previous !== undefined) {
      const before = previous.levels;
      let cursor = state.cursor;
      while (cursor < previous.done.length && (isBid ? before[cursor]![0] > price : before[cursor]![0] < price)) cursor++;
      state.cursor = cursor;
      if (cursor < previous.done.length && before[cursor]![0] === price) {
        const old = previous.done[cursor]!;
        reused = before[cursor]![1] === size ? old : [old[0], fromUnits(size, market.sizePrecision)];
      }
    }
    done.push(reused ?? [fromUnits(price, market.pricePrecision), fromUnits(size, market.sizePrecision)]);
  }
  if (done.length === levels.length) state.previous = undefined;
  return done.slice(0, limit);
}

/** The venue transaction of a system account's transaction body. */
function systemTx(accountId: bigint, market: Address, body: SystemTxBody): VenueTx {
  return body.kind === 'batch'
    ? { kind: 'batch', accountId, market, cancelSlotIdxs: body.cancelSlotIdxs, expectedOrderIds: body.expectedOrderIds, orders: body.orders }
    : { kind: 'replace', accountId, market, ops: body.ops, expectedOrderIds: body.expectedOrderIds };
}

/**
 * Creates the simulated venue from its config. Accounts of `funding.accounts` are opened and
 * credited at once; blocks start with `start()`.
 *
 * @example
 * const venue = createSimVenue({ config, clock: new VirtualClock(Date.UTC(2025, 0, 1)) });
 * venue.start();
 * const accountId = venue.fund(owner, usdc, 1_000_000_000n);
 */
export function createSimVenue(parameters: CreateSimVenueParameters): SimVenueModel {
  const { config, clock } = parameters;
  const catalog = createVenueCatalog(config);
  const engine = new MatchingEngine({ markets: catalog.markets });
  const registry = new SignerRegistry(engine.accounts);
  const quoteBooks = engineQuoteBooks(engine);
  const marketHistory = new MarketHistory(catalog.markets);
  const orderHistory = new OrderHistory({
    markets: catalog.markets,
    tokenName: (address) => catalog.tokenName(address),
    ownerOf: (accountId) => registry.ownerOf(accountId),
  });

  const outcomes = new Subject<TxOutcome>();
  const submissions = new Subject<RelaySubmission>();
  const systemOutcomes = new Subject<TxOutcome>();
  const blocks = new Subject<BlockInfo>();
  /** Markets whose book changed in the block being produced. */
  const dirty = new Set<Address>();
  const relayTxs = new Set<Hex>();
  let systemNonce = 0n;
  const systemTxHash = systemTxHashes(config.chainId, SYSTEM_SENDER);

  const recordEvents = (events: readonly VenueEvent[], context: LogContext) => {
    if (events.length === 0) return;
    orderHistory.record(events, context);
    for (const event of events) {
      dirty.add(event.market);
      if (event.type === 'OrderFilled') marketHistory.recordFill(event, context.timestamp);
    }
  };

  const onBlock = (produced: ProducedBlock<DepthBooks>) => {
    for (const receipt of produced.receipts) {
      const relayed = relayTxs.size > 0 && relayTxs.delete(receipt.transactionHash);
      // Most blocks hold only the background flow's transactions, whose outcomes no one may watch.
      if (!relayed && !systemOutcomes.observed) continue;
      const outcome: TxOutcome = {
        txHash: receipt.transactionHash,
        status: receipt.success ? 'CONFIRMED' : 'REVERTED',
        blockNumber: receipt.blockNumber,
        reason: receipt.reason,
      };
      if (relayed) outcomes.next(outcome);
      else systemOutcomes.next(outcome);
    }
    if (blocks.observed) blocks.next(blockInfo(produced.header));
  };

  const chain = new Chain<QueuedTx, DepthBooks>(
    { clock },
    {
      chainId: config.chainId,
      blockMs: config.blockMs,
      stateLagBlocks: config.stateLagBlocks,
      genesis: new Map(),
      execute: (tx, context) => {
        const body = tx.payload.decide?.() ?? tx.payload.tx;
        const run = () => executeVenueTx({ engine, registry }, body, context.block.timestamp);
        const result = outside !== undefined && tx.payload.origin === 'relay' ? withOutsideLiquidity(engine, outside.liquidity, outside.accountId, tx.payload.tx, run) : run();
        if (outside !== undefined && tx.payload.origin === 'relay' && tx.payload.tx.kind !== 'authorize') dirty.add(tx.payload.tx.market);
        if (!result.ok) return { success: false, reason: `${result.code}: ${result.message}`, logCount: 0 };
        recordEvents(result.events, {
          blockNumber: context.block.number,
          timestamp: context.block.timestamp,
          txHash: tx.hash,
          txIndex: context.txIndex,
          firstLogIndex: context.firstLogIndex,
        });
        for (const market of result.markets) dirty.add(market);
        return { success: true, reason: null, logCount: result.events.length };
      },
      // Cancels at the end of a block (minSizeAfterBlock) belong to no transaction: they carry the
      // block's hash and the index after its last transaction.
      endBlock: (block, firstLogIndex) => {
        const events = engine.endBlock();
        recordEvents(events, {
          blockNumber: block.number,
          timestamp: block.timestamp,
          txHash: block.hash,
          txIndex: block.transactions.length,
          firstLogIndex,
        });
        return events.length;
      },
      snapshot: (_block, previous) => {
        if (dirty.size === 0) return previous;
        const next = new Map(previous);
        for (const market of dirty) {
          const depth = engine.depth(market, SNAPSHOT_LEVELS);
          if (depth !== undefined) next.set(market, depth);
        }
        dirty.clear();
        return next;
      },
      onBlock,
    },
  );

  const relay = new RelayExecutor(
    {
      clock,
      registry,
      isMarket: (market) => engine.market(market) !== undefined,
      enqueue: (tx: ChainTx<QueuedTx>) => {
        relayTxs.add(tx.hash);
        chain.enqueue(tx);
      },
    },
    {
      chainId: config.chainId,
      accountCore: config.contracts.accountCore,
      tradingWalletDelegate: config.contracts.tradingWalletDelegate,
      tradingWalletDomainVersion: config.relay.tradingWalletDomainVersion,
      maxNonceSkewMs: config.relay.maxNonceSkewMs,
      sponsorAddress: config.relay.sponsorAddress,
    },
  );

  const fund = (owner: Address, token: Address, amount: bigint): bigint =>
    engine.accounts.fund({ owner: owner.toLowerCase() as Address, token: token.toLowerCase() as Address, amount }).id;

  for (const account of config.funding.accounts) {
    for (const [symbol, amount] of Object.entries(account.balances)) {
      const token = catalog.tokenBySymbol(symbol);
      if (token !== undefined) fund(account.owner, token.address, toUnits(amount, 10n ** BigInt(token.decimals), 'down'));
    }
  }

  /** A backtest's outside account, funded with every token beyond any need. */
  const outside =
    parameters.outsideLiquidity === undefined
      ? undefined
      : {
          liquidity: parameters.outsideLiquidity,
          accountId: catalog.tokens.reduce((id, token) => fund(parameters.outsideLiquidity!.owner, token.address, 10n ** 60n), 0n),
        };

  const topLevel = (levels: readonly (readonly [bigint, bigint])[] | undefined): TopLevel | undefined => levels?.[0];

  let flow: BackgroundFlow | undefined;
  const flowMarkets = catalog.markets.flatMap((spec) => {
    const settings = config.markets.find((market) => market.symbol === spec.symbol)?.flow;
    return settings ? [{ spec, flow: settings }] : [];
  });

  const venue: SimVenueModel = {
    start: () => {
      chain.start();
      if (parameters.backgroundFlow && flow === undefined && flowMarkets.length > 0) {
        flow = startBackgroundFlow(
          {
            fund,
            available: (accountId, token) => engine.balance(accountId, token).available,
            bestBidAsk: (market) => venue.bestBidAsk(market),
            slots: (accountId, market) => engine.accounts.get(accountId)?.peekSlots(market),
            enqueue: (accountId, market, tx) => {
              venue.enqueueSystemTx(accountId, market, tx);
            },
          },
          { markets: flowMarkets, clock, seed: parameters.seed ?? 0, settleMs: 2 * config.blockMs + 200 },
        );
      }
    },
    stop: () => {
      flow?.stop();
      flow = undefined;
      chain.stop();
    },

    info: () => ({
      chainId: config.chainId,
      blockMs: config.blockMs,
      contracts: { accountCore: config.contracts.accountCore, tradingWalletDelegate: config.contracts.tradingWalletDelegate },
      markets: catalog.markets,
      tokens: catalog.tokens,
    }),
    marketBySymbol: (symbol) => catalog.marketBySymbol(symbol),
    marketByAddress: (address) => catalog.marketByAddress(address),

    depth: (market, limit, state: OrderbookState): Depth => {
      const { header, snapshot } = chain.atState(state);
      const book = snapshot.get(market.address);
      const n = Math.min(Math.max(1, Math.floor(limit)), SNAPSHOT_LEVELS);
      return {
        lastUpdateId: Number(header.number),
        E: header.timestamp,
        T: Math.floor(header.timestamp / 1000),
        bids: book ? formattedLevels(book, 'bids', market, n) : [],
        asks: book ? formattedLevels(book, 'asks', market, n) : [],
      };
    },
    trades: (market, limit) => marketHistory.trades(market, limit),
    klines: (market, klineParameters) => marketHistory.klines(market, klineParameters, clock.now()),
    ticker24hr: (market) => {
      const book = chain.atState('committed').snapshot.get(market.address);
      return marketHistory.ticker24hr(market, clock.now(), { bid: topLevel(book?.bids), ask: topLevel(book?.asks) });
    },
    exchangeInfo: () => {
      const { header } = chain.atState('committed');
      return {
        timezone: 'UTC',
        serverTime: clock.now(),
        E: header.timestamp,
        T: Math.floor(header.timestamp / 1000),
        symbols: catalog.exchangeSymbols(),
      };
    },

    resolveAccount: (user) => registry.resolveAccount(user),
    orderEvents: (accountId, query) => orderHistory.orderEvents(accountId, query),
    activeOrders: (accountId, market, limit) => {
      const owner = registry.ownerOf(accountId);
      if (owner === undefined) return [];
      return orderHistory.activeOrders(market, owner, engine.activeOrders(accountId, market.address), limit);
    },

    freeBalance: (accountId, token) => engine.balance(accountId, token.toLowerCase() as Address).available,
    slotOrderId: (accountId, market, slot) => engine.slotOrderIds(accountId, market.toLowerCase() as Address)[slot] ?? null,

    token: (address) => catalog.token(address),
    quote: (request) => computeQuote(quoteBooks, request),

    submit: async (wallet, call, authorization7702) => {
      const result = await relay.submit(wallet, call, authorization7702);
      const header = 'header' in call.payload ? call.payload.header : undefined;
      submissions.next({ atMs: clock.now(), wallet: wallet.toLowerCase() as Address, method: call.method, nonce: header?.nonce, clientOrderId: header?.clientOrderId, result });
      return result;
    },
    submissions$: submissions.asObservable(),
    outcomes$: outcomes.asObservable(),
    receipt: (txHash): TxReceipt | undefined => {
      const receipt = chain.receipt(txHash.toLowerCase() as Hex);
      if (receipt === undefined) return undefined;
      return {
        transactionHash: receipt.transactionHash,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        transactionIndex: receipt.transactionIndex,
        from: receipt.from,
        to: receipt.to,
        success: receipt.success,
        type: receipt.type,
      };
    },
    blockNumber: () => chain.blockNumber(),

    fund,

    enqueueSystemTx: (accountId, market, body: SystemTxBody): Hex => {
      const hash = systemTxHash(systemNonce++);
      chain.enqueueUnique({ hash, from: SYSTEM_SENDER, to: market, type: 'DYNAMIC_FEE', payload: { origin: 'system', tx: systemTx(accountId, market, body) } });
      return hash;
    },
    enqueueDecidedSystemTx: (accountId, market, decide: () => SystemTxBody): Hex => {
      const hash = systemTxHash(systemNonce++);
      const placeholder = systemTx(accountId, market, { kind: 'batch', orders: [], cancelSlotIdxs: [], expectedOrderIds: [] });
      chain.enqueueUnique({ hash, from: SYSTEM_SENDER, to: market, type: 'DYNAMIC_FEE', payload: { origin: 'system', tx: placeholder, decide: () => systemTx(accountId, market, decide()) } });
      return hash;
    },
    systemOutcomes$: systemOutcomes.asObservable(),
    blocks$: blocks.asObservable(),
    produceBlock: () => blockInfo(chain.produceBlock().header),
    bestBidAsk: (market) => {
      const book = engine.book(market);
      return { bid: book?.bestBid() ?? null, ask: book?.bestAsk() ?? null };
    },
    openOrders: (accountId, market) => engine.activeOrders(accountId, market),
    sizeAhead: (market, orderId) => {
      const book = engine.book(market);
      const target = book?.get(orderId);
      if (book === undefined || target === undefined) return undefined;
      let ahead = 0n;
      for (const order of book.orders(target.side === 'BUY')) {
        if (order.id === orderId) return ahead;
        ahead += order.remaining;
      }
      return undefined;
    },
    available: (accountId, token) => engine.balance(accountId, token).available,
    balance: (accountId, token) => engine.balance(accountId, token),
    accountOf: (owner) => engine.accounts.byOwnerAddress(owner)?.id,
    pendingTransactions: () => chain.pendingCount(),
  };
  return venue;
}
