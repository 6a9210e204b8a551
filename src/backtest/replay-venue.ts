/**
 * The venue of a backtest: the local venue's model (the same accounts, slots, relay checks, blocks,
 * fees and order events as live) with its own market replaced by a recorded one.
 *
 * - **Time**: the feed's rows are applied at their exchange time on the virtual clock.
 * - **Market data** is answered from the recorded book and tape as of the request (net of the
 *   recorded bot's own orders and own taker trades), with the replayed bot's own resting orders
 *   added to the depth it sees.
 * - **The bot's own resting orders** fill when a recorded trade reaches them through their queue
 *   (the queue model), or when the recorded book crosses them. Each recorded trade is consumed once
 *   across the own orders it reaches: better prices first, then in the order they were placed. The
 *   decision is made in a transaction of the block of the trade's time, when that block executes
 *   it: after the bot's transactions queued before (an order placed in the block can fill in it, as
 *   on the venue). A script taker then meets exactly the orders decided, so the venue's own matching,
 *   fees and order events do the rest.
 * - **The bot's own incoming orders** meet the recorded book as outside liquidity while their
 *   transaction executes (src/venue/outside-liquidity.ts): post-only orders that would cross it are
 *   rejected, takers walk it level by level, net of what earlier takers took.
 */
import type { VirtualClock } from '../core/virtual-clock.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { MarketHistory } from '../venue/market-history.ts';
import type { OutsideLiquidity } from '../venue/outside-liquidity.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import type { EventFeedReader } from '../feeds/event-feed-reader.ts';
import { FeedEventKind } from '../feeds/feed-event.ts';
import { msReader, numberReader } from '../feeds/ns-to-ms.ts';
import type { SimReplay } from '../sim/sim-service.ts';
import type { QueueModel } from './queue-model.ts';
import { ExchangeOrder, NO_ROW } from './exchange-order.ts';
import { OwnOrderFills } from './own-order-fills.ts';
import { replayMarketData } from './replay-market-data.ts';
import { ReplayBook, type BookSideName, type LevelChange } from './replay-book.ts';

/**
 * Recorded trades the replay keeps for the trades, klines and ticker answers: enough for every trades
 * poll and for candles and a 24-hour ticker of a market that trades about once a second, and what
 * bounds a long backtest's memory.
 */
const REPLAY_TAPE_TRADES = 100_000;

/** How long after its exchange time a row may reach the recording (poll period, committed lag, latency). */
const MAX_RECEIVE_LAG_MS = 5_000;

/** The script accounts of a replay (their addresses are ours: keccak-free, valid nowhere else). */
export const OUTSIDE_OWNER: Address = '0x0000000000000000000000000000000000b0c7e1';
export const TAKER_OWNER: Address = '0x0000000000000000000000000000000000b0c7e2';

export interface ReplayVenueParameters {
  readonly feed: EventFeedReader;
  readonly spec: MarketSpec;
  readonly clock: VirtualClock;
  readonly queueModel: QueueModel;
  /** Feed units in venue units: price units per tick, size units per lot. */
  readonly unitsPerTick: bigint;
  readonly unitsPerLot: bigint;
  /** Rows before this exchange time (ms) build the book but are not traded against. */
  readonly fromMs?: number;
  /** The replay ends at this exchange time (ms, exclusive). */
  readonly toMs?: number;
  /**
   * How far the `committed` orderbook state lags the venue (the sim config's blocks to committed x
   * its block time): a depth poll of that state is answered with the recorded book of that long ago,
   * as the recorded bot saw it.
   */
  readonly committedLagMs?: number;
}

/** What a replay did: counts for the summary. */
export interface ReplayStats {
  /** Feed rows read. */
  rows: number;
  /** Recorded trades replayed (their part that was not the recorded bot's taking). */
  trades: number;
  /** Fills of the bot's own resting orders the replay decided, and their size units. */
  fills: number;
  filledSize: bigint;
  /** Book gaps in the feed: the book was unknown until the next snapshot. */
  bookGaps: number;
  /** Exchange time of the first and last rows replayed, ms. */
  firstMs: number | undefined;
  lastMs: number | undefined;
}

type PendingEvent =
  | { readonly type: 'level'; readonly change: LevelChange }
  | { readonly type: 'trade'; readonly takerSide: OrderSide; readonly price: bigint; readonly size: bigint; readonly recordedOwn: bigint }
  | { readonly type: 'checkpoint' };
const CHECKPOINT: PendingEvent = { type: 'checkpoint' };


export interface ReplayVenue {
  /** What the in-process venue takes in place of its own market. */
  readonly simReplay: SimReplay;
  /** The bot's account, once the venue has set it up: its orders are the ones the replay fills. */
  setBotAccount(accountId: bigint): void;
  /** The venue model the replay runs in (once the in-process venue exists). */
  model(): SimVenueModel;
  /** Plays the feed on the clock; resolves at its end (or `toMs`). */
  run(): Promise<ReplayStats>;
  readonly stats: ReplayStats;
  /** The recorded mid (price units, floored) now, when both sides show a level. */
  mid(): bigint | undefined;
}


/**
 * @example
 * const replay = createReplayVenue({ feed, spec, clock, queueModel, unitsPerTick: 10n, unitsPerLot: 1n });
 * const venue = createInProcessVenue({ …, backgroundFlow: false, replay: replay.simReplay });
 * replay.setBotAccount(accountId);
 * await replay.run();
 */
export function createReplayVenue(params: ReplayVenueParameters): ReplayVenue {
  const { spec, clock, queueModel, unitsPerTick, unitsPerLot } = params;
  // Feed units to venue units (one bigint less per row where they are the same).
  // Prices as numbers (uint32 price units: exact) on the level path, where most rows go.
  const priceUnitsPerTick = Number(unitsPerTick);
  const toSizeUnits = unitsPerLot === 1n ? (size: bigint) => size : (size: bigint) => size * unitsPerLot;
  const book = new ReplayBook();
  /** The book as committed-state depth polls see it: the same rows, `committedLagMs` later. */
  const committedBook = new ReplayBook();
  const lagMs = params.committedLagMs ?? 0;
  /** The rows held in exchange order, then (their slots) until the committed book has applied them. */
  const held = new ExchangeOrder();
  const delayed: number[] = [];
  let delayedAt = 0;
  const history = new MarketHistory([spec], REPLAY_TAPE_TRADES);
  const stats: ReplayStats = { rows: 0, trades: 0, fills: 0, filledSize: 0n, bookGaps: 0, firstMs: undefined, lastMs: undefined };
  let venue: SimVenueModel | undefined;
  let botAccount: bigint | undefined;
  let takerAccount = 0n;
  const fills = new OwnOrderFills(book, queueModel, stats);
  let lastTradeMs = 0;

  /**
   * What the recorded market did since the last decision, in order: it reaches the bot's orders in a
   * transaction of the block of its time, decided when that block executes it, after the bot's own
   * transactions queued before (an order placed in the block can be filled in it, as on the venue).
   */
  const pending: PendingEvent[] = [];
  let decisionQueued = false;
  const queueDecision = () => {
    if (decisionQueued || venue === undefined) return;
    decisionQueued = true;
    venue.enqueueDecidedSystemTx(takerAccount, spec.address, () => {
      decisionQueued = false;
      const joined = refreshOwn();
      for (const event of pending) {
        if (event.type === 'level') fills.onLevel(event.change, joined);
        else if (event.type === 'trade') fills.onTrade(event.takerSide, event.price, event.size, event.recordedOwn);
        else fills.onCheckpoint();
      }
      pending.length = 0;
      return fills.body();
    });
  };

  /** The bot's resting orders now: new ones join their queue (returned), gone ones leave. */
  const refreshOwn = (): Set<bigint> => (venue === undefined || botAccount === undefined ? new Set() : fills.refresh(venue.openOrders(botAccount, spec.address)));

  const recordTape = (id: bigint, takerSide: OrderSide, price: bigint, size: bigint, atMs: number) => {
    lastTradeMs = atMs > lastTradeMs ? atMs : lastTradeMs;
    history.recordTrade(spec.address, id, price, size, takerSide, lastTradeMs);
  };

  /** The row of `slot` applied to the committed book (a row that shapes what depth polls show), then let go. */
  const applyToCommitted = (slot: number): void => {
    const kind = held.kind[slot]!;
    const side: BookSideName = held.side[slot]! > 0 ? 'bids' : 'asks';
    if (kind === FeedEventKind.BOOK_CLEAR || kind === FeedEventKind.BOOK_GAP) committedBook.clear();
    else if (kind === FeedEventKind.LEVEL) committedBook.setLevel(side, held.price[slot]!, held.qty[slot]!);
    else if (kind === FeedEventKind.CHECKPOINT) committedBook.checkpoint(held.id[slot]!, held.exchMs[slot]!);
    else if (kind === FeedEventKind.OWN_ORDER) committedBook.ownOrder(held.id[slot]!, side, BigInt(held.price[slot]!), held.qty[slot]!);
    else if (kind === FeedEventKind.OWN_CANCEL) committedBook.ownReduced(held.id[slot]!);
    else if (kind === FeedEventKind.OWN_FILL) committedBook.ownReduced(held.id[slot]!, held.qty[slot]!);
    held.release(slot);
  };
  /** Moves the committed book up to now. */
  const drainCommitted = () => {
    const dueBefore = clock.now() - lagMs;
    while (delayedAt < delayed.length && held.exchMs[delayed[delayedAt]!]! <= dueBefore) applyToCommitted(delayed[delayedAt++]!);
    if (delayedAt > 4096) {
      delayed.splice(0, delayedAt);
      delayedAt = 0;
    }
  };

  /** Applies the row of `slot` (already due; price and size in venue units). */
  const apply = (slot: number, trading: boolean): void => {
    const kind = held.kind[slot]!;
    const sideSign = held.side[slot]!;
    const priceUnits = held.price[slot]!;
    const qty = held.qty[slot]!;
    const id = held.id[slot]!;
    const exchMs = held.exchMs[slot]!;
    const side: BookSideName = sideSign > 0 ? 'bids' : 'asks';
    if (kind !== FeedEventKind.TRADE && kind !== FeedEventKind.OWN_TAKER_FILL && kind !== FeedEventKind.BBO && kind !== FeedEventKind.TRADE_GAP) delayed.push(slot);
    else held.release(slot);
    switch (kind) {
      case FeedEventKind.BOOK_CLEAR:
        book.clear();
        return;
      case FeedEventKind.LEVEL: {
        const change = book.setLevel(side, priceUnits, qty, trading && fills.restsAt(side, priceUnits));
        if (change !== undefined) pending.push({ type: 'level', change });
        return;
      }
      case FeedEventKind.CHECKPOINT:
        book.checkpoint(id, exchMs);
        if (trading) {
          pending.push(CHECKPOINT);
          queueDecision();
        }
        return;
      case FeedEventKind.TRADE: {
        const price = BigInt(priceUnits);
        const tape = book.tapeSize(price, qty, exchMs);
        if (tape === 0n) return;
        const takerSide: OrderSide = sideSign > 0 ? 'BUY' : 'SELL';
        recordTape(id, takerSide, price, tape, exchMs);
        stats.trades += 1;
        if (trading) {
          pending.push({ type: 'trade', takerSide, price, size: tape, recordedOwn: book.ownMakerPart(price, tape, exchMs) });
          queueDecision();
        }
        return;
      }
      case FeedEventKind.BOOK_GAP:
        stats.bookGaps += 1;
        book.clear();
        return;
      case FeedEventKind.OWN_ORDER:
        book.ownOrder(id, side, BigInt(priceUnits), qty);
        return;
      case FeedEventKind.OWN_CANCEL:
        book.ownReduced(id);
        return;
      case FeedEventKind.OWN_FILL:
        book.ownReduced(id, qty);
        book.ownMakerFill(BigInt(priceUnits), qty, exchMs);
        return;
      case FeedEventKind.OWN_TAKER_FILL:
        book.ownTakerFill(BigInt(priceUnits), qty, exchMs);
        return;
      default:
        return;
    }
  };

  const until = (ms: number) => new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), Math.max(0, ms - clock.now())));

  /** The venue hands itself over when it is created: the replay watches its blocks and funds its script taker. */
  const attach = (model: SimVenueModel) => {
    venue = model;
    for (const token of [spec.baseToken, spec.quoteToken]) takerAccount = model.fund(TAKER_OWNER, token.address, 10n ** 60n);
    model.blocks$.subscribe(() => refreshOwn());
  };

  const marketData = (model: SimVenueModel): ReturnType<SimReplay['marketData']> => {
    attach(model);
    return marketAnswers(model);
  };

  const marketAnswers = replayMarketData({ spec, clock, book, committedBook, catchUp: drainCommitted, history });

  const outsideLiquidity: OutsideLiquidity = {
    owner: OUTSIDE_OWNER,
    levels: (market, side, limitPrice) => (market === spec.address ? book.reachable(side, limitPrice) : []),
    taken(market, takerSide, taken) {
      if (market !== spec.address) return;
      const side: BookSideName = takerSide === 'BUY' ? 'asks' : 'bids';
      for (const [price, size] of taken) book.consume(side, price, size);
    },
  };

  return {
    simReplay: { outsideLiquidity, marketData },
    stats,
    mid() {
      const bid = book.best('bids');
      const ask = book.best('asks');
      return bid === undefined || ask === undefined ? undefined : (bid[0] + ask[0]) / 2n;
    },
    setBotAccount(accountId) {
      botAccount = accountId;
    },
    model() {
      if (venue === undefined) throw new Error('replay: the venue does not exist yet');
      return venue;
    },
    async run() {
      const fromMs = params.fromMs ?? Number.NEGATIVE_INFINITY;
      const toMs = params.toMs ?? Number.POSITIVE_INFINITY;
      /**
       * A row is applied just before the block of its exchange time, so that a fill it decides
       * executes in that block, as the recorded trade did. Returns the time to wait for first, when
       * something else on the clock (a block, a poll, a message) is due before then; rows due before
       * anything else are applied at once: nothing can see the state in between, and a wait per row
       * would be the replay's largest cost.
       */
      const waitFor = (exchMs: number): number | undefined => {
        if (exchMs < fromMs || exchMs - 1 <= clock.now()) return undefined;
        const next = clock.nextDueTime();
        return next !== undefined && next <= exchMs - 1 ? exchMs - 1 : undefined;
      };
      const play = (slot: number): void => {
        const exchMs = held.exchMs[slot]!;
        stats.rows += 1;
        stats.firstMs ??= exchMs;
        stats.lastMs = exchMs;
        drainCommitted();
        apply(slot, exchMs >= fromMs);
      };
      /**
       * Plays the held rows up to `safeMs` (all of them at the feed's end) while none has to wait;
       * returns the time to wait for before the next one, PAST_END once past `toMs`, or undefined.
       */
      const PAST_END = -1;
      const release = (safeMs: number): number | undefined => {
        for (let slot = held.peek(); slot !== NO_ROW && held.exchMs[slot]! <= safeMs; slot = held.peek()) {
          const exchMs = held.exchMs[slot]!;
          if (exchMs >= toMs) return PAST_END;
          const wait = waitFor(exchMs);
          if (wait !== undefined) return wait;
          play(held.pop());
        }
        return undefined;
      };
      for await (const rows of params.feed.batches()) {
        const { kind, side, qty, id } = rows;
        const ticksAt = numberReader(rows.price);
        const exchMsAt = msReader(rows.exchTs);
        const localMsAt = msReader(rows.localTs);
        for (let i = 0; i < rows.length; i += 1) {
          // A level's update id is never read (its checkpoint carries it): one bigint less for most rows.
          const rowKind = kind[i]!;
          held.push(exchMsAt(i), rowKind, side[i]!, ticksAt(i) * priceUnitsPerTick, toSizeUnits(qty[i]!), rowKind === FeedEventKind.LEVEL ? 0n : id[i]!);
          const safeMs = localMsAt(i) - MAX_RECEIVE_LAG_MS;
          // Once waited for, the row is due (nothing comes before it on the clock): the next release plays it.
          for (let wait = release(safeMs); wait !== undefined; wait = release(safeMs)) {
            if (wait === PAST_END) return stats;
            await until(wait);
          }
        }
      }
      for (let wait = release(Number.POSITIVE_INFINITY); wait !== undefined; wait = release(Number.POSITIVE_INFINITY)) {
        if (wait === PAST_END) return stats;
        await until(wait);
      }
      return stats;
    },
  };
}
