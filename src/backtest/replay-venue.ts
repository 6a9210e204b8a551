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
import { fromUnits, toUnits } from '../core/units.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Depth } from '../protocol/market-data.ts';
import { MarketHistory } from '../venue/market-history.ts';
import type { OutsideLiquidity } from '../venue/outside-liquidity.ts';
import type { SimVenueModel, SystemTxBody } from '../venue/sim-venue.ts';
import type { OrderFilled } from '../venue/venue-events.ts';
import type { EventFeedReader } from '../feeds/event-feed-reader.ts';
import { FeedEventKind } from '../feeds/feed-event.ts';
import { msReader } from '../feeds/ns-to-ms.ts';
import type { SimReplay } from '../sim/sim-service.ts';
import type { QueueModel, QueuePosition } from './queue-model.ts';
import { ExchangeOrder, type HeldRow } from './exchange-order.ts';
import { ReplayBook, type BookSideName, type LevelChange } from './replay-book.ts';

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

interface OwnOrder {
  readonly id: bigint;
  readonly side: BookSideName;
  readonly price: bigint;
  remaining: bigint;
  /** Fills decided and not yet executed by the venue. */
  pending: bigint;
  readonly position: QueuePosition;
}

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

const sideOf = (side: OrderSide): BookSideName => (side === 'BUY' ? 'bids' : 'asks');
/** True when `a` is a better price than `b` on `side`. */
const better = (side: BookSideName, a: bigint, b: bigint) => (side === 'bids' ? a > b : a < b);

/**
 * @example
 * const replay = createReplayVenue({ feed, spec, clock, queueModel, unitsPerTick: 10n, unitsPerLot: 1n });
 * const venue = createInProcessVenue({ …, backgroundFlow: false, replay: replay.simReplay });
 * replay.setBotAccount(accountId);
 * await replay.run();
 */
export function createReplayVenue(params: ReplayVenueParameters): ReplayVenue {
  const { spec, clock, queueModel, unitsPerTick, unitsPerLot } = params;
  const book = new ReplayBook();
  /** The book as committed-state depth polls see it: the same rows, `committedLagMs` later. */
  const committedBook = new ReplayBook();
  const lagMs = params.committedLagMs ?? 0;
  const delayed: { dueMs: number; kind: number; side: number; price: bigint; qty: bigint; id: bigint; exchMs: number }[] = [];
  let delayedAt = 0;
  const history = new MarketHistory([spec]);
  const stats: ReplayStats = { rows: 0, trades: 0, fills: 0, filledSize: 0n, bookGaps: 0, firstMs: undefined, lastMs: undefined };
  const own = new Map<bigint, OwnOrder>();
  let venue: SimVenueModel | undefined;
  let botAccount: bigint | undefined;
  let takerAccount = 0n;
  /** Fills decided since the last flush, in the order they must execute. */
  const fills: OwnOrder[] = [];
  const fillSizes = new Map<bigint, bigint>();
  let lastTradeMs = 0;

  const decideFill = (order: OwnOrder, size: bigint) => {
    if (size <= 0n) return;
    order.pending += size;
    if (!fillSizes.has(order.id)) fills.push(order);
    fillSizes.set(order.id, (fillSizes.get(order.id) ?? 0n) + size);
    stats.fills += 1;
    stats.filledSize += size;
  };
  const open = (order: OwnOrder) => order.remaining - order.pending;

  /** The script taker's orders that meet exactly the decided fills (its transaction's body). */
  const fillsBody = (): SystemTxBody => {
    const orders: OrderIntent[] = fills.map((order) => ({
      side: order.side === 'bids' ? 'SELL' : 'BUY',
      price: order.price,
      quantity: fillSizes.get(order.id)!,
      tif: 'IOC',
      executionInstruction: 'NONE',
      minSizeAfterBlock: 0n,
    }));
    fills.length = 0;
    fillSizes.clear();
    return { kind: 'batch', orders, cancelSlotIdxs: [], expectedOrderIds: [] };
  };

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
        if (event.type === 'level') onLevel(event.change, joined);
        else if (event.type === 'trade') onTrade(event.takerSide, event.price, event.size, event.recordedOwn);
        else onCheckpoint();
      }
      pending.length = 0;
      return fillsBody();
    });
  };

  /** Own resting orders of the bot now: new ones join their queue (returned), gone ones leave. */
  const refreshOwn = (): Set<bigint> => {
    const joined = new Set<bigint>();
    const account = botAccount;
    if (venue === undefined || account === undefined) return joined;
    const seen = new Set<bigint>();
    for (const order of venue.openOrders(account, spec.address)) {
      seen.add(order.id);
      const known = own.get(order.id);
      if (known !== undefined) {
        known.remaining = order.remaining;
        known.pending = 0n;
        continue;
      }
      const side = sideOf(order.side);
      const best = book.best(side);
      // Price improvement puts it at the front; otherwise it joins behind what is displayed at its price.
      const ahead = best === undefined || better(side, order.price, best[0]) ? 0n : book.displayed(side, order.price);
      own.set(order.id, { id: order.id, side, price: order.price, remaining: order.remaining, pending: 0n, position: queueModel.place(ahead) });
      joined.add(order.id);
    }
    for (const id of own.keys()) if (!seen.has(id)) own.delete(id);
    return joined;
  };

  /** True when an own order rests at `price` on `side` (a depth change there moves its queue). */
  const ownAt = (side: BookSideName, price: bigint): boolean => {
    if (own.size === 0) return false;
    for (const order of own.values()) if (order.side === side && order.price === price) return true;
    return false;
  };

  /** Own orders of `side`, best price first, then in the order they were placed. */
  const ownOn = (side: BookSideName): OwnOrder[] =>
    [...own.values()].filter((order) => order.side === side).sort((a, b) => (a.price === b.price ? (a.id < b.id ? -1 : 1) : better(side, a.price, b.price) ? -1 : 1));

  /** A depth change at an own order's price moves its queue (an order that joined after it already counts it). */
  const onLevel = (change: LevelChange, joined: ReadonlySet<bigint>) => {
    for (const order of own.values()) {
      if (order.side === change.side && order.price === change.price && !joined.has(order.id)) queueModel.onDepth(order.position, change.before, change.after);
    }
  };

  /**
   * A recorded trade of `size` at `price` by a `takerSide` taker reaches the own orders it can. The
   * part that filled the recorded bot's own order (`recordedOwn`) is taker flow that, without that
   * order, would have gone on: what of it the replayed bot's orders at the price did not take walks
   * on through the displayed book to worse prices (continueFlow).
   */
  const onTrade = (takerSide: OrderSide, price: bigint, size: bigint, recordedOwn: bigint) => {
    const side: BookSideName = takerSide === 'BUY' ? 'asks' : 'bids';
    let left = size;
    let blocked = false;
    for (const order of ownOn(side)) {
      if (better(side, price, order.price)) break;
      if (order.price !== price) {
        // A better price than the trade's: the taker met it first.
        const fill = open(order) < left ? open(order) : left;
        decideFill(order, fill);
        left -= fill;
        if (open(order) > 0n) blocked = true;
        continue;
      }
      queueModel.onTrade(order.position, size);
      const reached = queueModel.takeFilled(order.position);
      if (blocked || left === 0n) continue;
      let fill = reached < open(order) ? reached : open(order);
      if (fill > left) fill = left;
      decideFill(order, fill);
      left -= fill;
      // An own order still open at this price stands ahead of the later ones.
      if (open(order) > 0n) blocked = true;
    }
    const taken = size - left;
    if (recordedOwn > taken && !blocked) continueFlow(side, price, recordedOwn - taken);
  };

  /**
   * Taker flow of `size` that went past `price` on `side` (what filled the recorded bot's order
   * there: had it not rested, the taker would have gone on). At each worse price it takes the queue
   * ahead of the replayed bot's orders there, then theirs, then what rests behind them; what is left
   * goes on to the next price. It is assumed to have no limit (a market order) and to take nothing
   * more at `price` itself (the recorded bot was typically alone at its price).
   */
  const continueFlow = (side: BookSideName, price: bigint, size: bigint) => {
    let left = size;
    const levels = new Set<bigint>(book.levels(side).map(([level]) => level));
    const mine = ownOn(side).filter((order) => better(side, price, order.price));
    for (const order of mine) levels.add(order.price);
    for (const level of [...levels].filter((candidate) => better(side, price, candidate)).sort((a, b) => (better(side, a, b) ? -1 : 1))) {
      if (left <= 0n) return;
      const displayed = book.displayed(side, level);
      for (const order of mine) {
        if (order.price !== level) continue;
        const front = BigInt(Math.max(0, Math.floor(queueModel.front(order.position))));
        const reach = left - front;
        if (reach <= 0n) break;
        const fill = reach < open(order) ? reach : open(order);
        decideFill(order, fill);
        left -= fill;
        if (open(order) > 0n) return;
      }
      left -= displayed;
    }
  };

  /** After a checkpoint: own orders the recorded book now crosses are filled whole, at their price. */
  const onCheckpoint = () => {
    for (const side of ['bids', 'asks'] as const) {
      const opposite = book.best(side === 'bids' ? 'asks' : 'bids');
      if (opposite === undefined) continue;
      for (const order of ownOn(side)) {
        if (side === 'bids' ? order.price < opposite[0] : order.price > opposite[0]) break;
        decideFill(order, open(order));
      }
    }
  };

  const recordTape = (id: bigint, takerSide: OrderSide, price: bigint, size: bigint, atMs: number) => {
    lastTradeMs = atMs > lastTradeMs ? atMs : lastTradeMs;
    const fill: OrderFilled = {
      type: 'OrderFilled',
      market: spec.address,
      tradeId: id,
      price,
      size,
      quote: 0n,
      base: 0n,
      takerSide,
      makerOrderId: 0n,
      makerAccountId: 0n,
      makerSlot: -1,
      makerRemaining: 0n,
      makerFee: 0n,
      takerOrderId: 0n,
      takerAccountId: 0n,
      takerRemaining: 0n,
      takerFee: 0n,
    };
    history.recordFill(fill, lastTradeMs);
  };

  /** The rows that shape what depth polls show, applied to `target` (the committed book, later). */
  const applyToBook = (target: ReplayBook, kind: number, sideSign: number, price: bigint, qty: bigint, id: bigint, exchMs: number): void => {
    const side: BookSideName = sideSign > 0 ? 'bids' : 'asks';
    if (kind === FeedEventKind.BOOK_CLEAR || kind === FeedEventKind.BOOK_GAP) target.clear();
    else if (kind === FeedEventKind.LEVEL) target.setLevel(side, price * unitsPerTick, qty * unitsPerLot);
    else if (kind === FeedEventKind.CHECKPOINT) target.checkpoint(id, exchMs);
    else if (kind === FeedEventKind.OWN_ORDER) target.ownOrder(id, side, price * unitsPerTick, qty * unitsPerLot);
    else if (kind === FeedEventKind.OWN_CANCEL) target.ownReduced(id);
    else if (kind === FeedEventKind.OWN_FILL) target.ownReduced(id, qty * unitsPerLot);
  };
  /** Moves the committed book up to now. */
  const drainCommitted = () => {
    const now = clock.now();
    while (delayedAt < delayed.length && delayed[delayedAt]!.dueMs <= now) {
      const row = delayed[delayedAt++]!;
      applyToBook(committedBook, row.kind, row.side, row.price, row.qty, row.id, row.exchMs);
    }
    if (delayedAt > 4096) {
      delayed.splice(0, delayedAt);
      delayedAt = 0;
    }
  };

  /** Applies one row (already due). */
  const apply = (kind: number, sideSign: number, price: bigint, qty: bigint, id: bigint, exchMs: number, trading: boolean): void => {
    const side: BookSideName = sideSign > 0 ? 'bids' : 'asks';
    if (kind !== FeedEventKind.TRADE && kind !== FeedEventKind.OWN_TAKER_FILL && kind !== FeedEventKind.BBO && kind !== FeedEventKind.TRADE_GAP) {
      delayed.push({ dueMs: exchMs + lagMs, kind, side: sideSign, price, qty, id, exchMs });
    }
    switch (kind) {
      case FeedEventKind.BOOK_CLEAR:
        book.clear();
        return;
      case FeedEventKind.LEVEL: {
        const units = price * unitsPerTick;
        const change = book.setLevel(side, units, qty * unitsPerLot, trading && ownAt(side, units));
        if (change !== undefined) pending.push({ type: 'level', change });
        return;
      }
      case FeedEventKind.CHECKPOINT:
        book.checkpoint(id, exchMs);
        if (trading) {
          pending.push({ type: 'checkpoint' });
          queueDecision();
        }
        return;
      case FeedEventKind.TRADE: {
        const units = qty * unitsPerLot;
        const tape = book.tapeSize(price * unitsPerTick, units, exchMs);
        if (tape === 0n) return;
        const takerSide: OrderSide = sideSign > 0 ? 'BUY' : 'SELL';
        recordTape(id, takerSide, price * unitsPerTick, tape, exchMs);
        stats.trades += 1;
        if (trading) {
          pending.push({ type: 'trade', takerSide, price: price * unitsPerTick, size: tape, recordedOwn: book.ownMakerPart(price * unitsPerTick, tape, exchMs) });
          queueDecision();
        }
        return;
      }
      case FeedEventKind.BOOK_GAP:
        stats.bookGaps += 1;
        book.clear();
        return;
      case FeedEventKind.OWN_ORDER:
        book.ownOrder(id, side, price * unitsPerTick, qty * unitsPerLot);
        return;
      case FeedEventKind.OWN_CANCEL:
        book.ownReduced(id);
        return;
      case FeedEventKind.OWN_FILL:
        book.ownReduced(id, qty * unitsPerLot);
        book.ownMakerFill(price * unitsPerTick, qty * unitsPerLot, exchMs);
        return;
      case FeedEventKind.OWN_TAKER_FILL:
        book.ownTakerFill(price * unitsPerTick, qty * unitsPerLot, exchMs);
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

  /** The last depth answer per state and limit, reused while neither the book nor the own orders changed. */
  const lastDepth = new Map<string, { version: number; bids: unknown; asks: unknown; merged: { bids: [string, string][]; asks: [string, string][] } }>();
  /** Formatted levels, kept so that one level is formatted and serialised once however many answers hold it. */
  const levelTexts = new Map<string, [string, string]>();
  const formattedLevel = (price: bigint, size: bigint): [string, string] => {
    const key = `${price}:${size}`;
    let level = levelTexts.get(key);
    if (level === undefined) {
      if (levelTexts.size >= 100_000) levelTexts.clear();
      level = [fromUnits(price, spec.pricePrecision), fromUnits(size, spec.sizePrecision)];
      levelTexts.set(key, level);
    }
    return level;
  };

  const marketAnswers = (model: SimVenueModel): ReturnType<SimReplay['marketData']> => ({
    depth(market, limit, state): Depth {
      // The venue's own answer for its block ids and times and the bot's own orders; the recorded book besides.
      const answer = model.depth(market, limit, state);
      drainCommitted();
      const seen = state === 'committed' ? committedBook : book;
      const last = lastDepth.get(`${state}:${limit}`);
      if (last !== undefined && last.version === seen.version && last.bids === answer.bids && last.asks === answer.asks) {
        return { ...answer, bids: last.merged.bids, asks: last.merged.asks };
      }
      const merge = (side: BookSideName, ownLevels: readonly (readonly [string, string])[]) => {
        const sizes = new Map<bigint, bigint>();
        for (const [price, size] of seen.levels(side, limit)) sizes.set(price, size);
        for (const [price, size] of ownLevels) {
          const units = toUnits(price, spec.pricePrecision);
          sizes.set(units, (sizes.get(units) ?? 0n) + toUnits(size, spec.sizePrecision));
        }
        return [...sizes]
          .sort(([a], [b]) => (better(side, a, b) ? -1 : 1))
          .slice(0, limit)
          .map(([price, size]) => formattedLevel(price, size));
      };
      const merged = { bids: merge('bids', answer.bids), asks: merge('asks', answer.asks) };
      lastDepth.set(`${state}:${limit}`, { version: seen.version, bids: answer.bids, asks: answer.asks, merged });
      return { ...answer, ...merged };
    },
    trades: (market, limit) => history.trades(market, limit),
    klines: (market, parameters) => history.klines(market, parameters, clock.now()),
    ticker24hr: (market) => history.ticker24hr(market, clock.now(), { bid: book.best('bids'), ask: book.best('asks') }),
  });

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
      const held = new ExchangeOrder();
      let seq = 0;
      /** Applies one row at its exchange time (rows before the range at once, building the book). */
      const play = async (row: HeldRow) => {
        const { exchMs } = row;
        // A row is applied just before the block of its exchange time, so that a fill it decides
        // executes in that block, as the recorded trade did.
        // Rows due before anything else on the clock are applied at once: nothing can see the state
        // in between (the next block, poll or message is later), and a wait per row is the
        // replay's largest cost.
        const next = clock.nextDueTime();
        if (exchMs >= fromMs && exchMs - 1 > clock.now() && next !== undefined && next <= exchMs - 1) {
          await until(exchMs - 1);
        }
        stats.rows += 1;
        stats.firstMs ??= exchMs;
        stats.lastMs = exchMs;
        drainCommitted();
        apply(row.kind, row.side, row.price, row.qty, row.id, exchMs, exchMs >= fromMs);
      };
      for await (const rows of params.feed.batches()) {
        const { kind, side, price, qty, id } = rows;
        const exchMsAt = msReader(rows.exchTs);
        const localMsAt = msReader(rows.localTs);
        for (let i = 0; i < rows.length; i += 1) {
          held.push({ exchMs: exchMsAt(i), seq: (seq += 1), kind: kind[i]!, side: side[i]!, price: price[i]!, qty: qty[i]!, id: id[i]! });
          const safeMs = localMsAt(i) - MAX_RECEIVE_LAG_MS;
          while (held.size > 0 && held.peek()!.exchMs <= safeMs) {
            const row = held.pop()!;
            if (row.exchMs >= toMs) return stats;
            await play(row);
          }
        }
      }
      while (held.size > 0) {
        const row = held.pop()!;
        if (row.exchMs >= toMs) break;
        await play(row);
      }
      return stats;
    },
  };
}
