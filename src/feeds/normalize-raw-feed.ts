/**
 * Turns a raw recording into a normalized event feed (docs/feeds.md, "From a recording"):
 * - each depth poll becomes the level changes since the previous poll and a CHECKPOINT at its
 *   update id (the first poll a BOOK_CLEAR and every level), so replaying the rows rebuilds exactly
 *   the book each poll returned; polls of an update id already seen (a stale or repeated answer)
 *   add nothing;
 * - each trade poll adds the trades not seen before, ascending by id, and a TRADE_GAP when the
 *   poll's oldest new trade is not the one after the last seen (more trades happened between two
 *   polls than a poll returns);
 * - the bot's own orders, cancels and fills become OWN_* rows;
 * - ticker answers are left out: a replay derives the 24-hour ticker from the trades.
 */
import { BaseError } from '../core/base-error.ts';
import { decimalScale, inferStep, parseStep } from './decimal-scale.ts';
import { FeedEventKind, msToNs, Side, type FeedEvent } from './feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader, type FeedMarket } from './feed-header.ts';
import { createEventFeedWriter } from './event-feed-writer.ts';
import { reorderBuffer } from './reorder-buffer.ts';
import { describeInput, invalidRecord } from './importers/importer.ts';
import { openRawFeed, type RawRecordAt } from './raw-feed-reader.ts';
import { ownCancelMetaSchema, ownFillMetaSchema, ownOrderIdMetaSchema, ownOrderMetaSchema } from './raw-feed-format.ts';

/** How much later than its effect the recorder may hear of an own order or fill (user-data polling). */
const OWN_RECORD_LAG_NS = 10_000_000_000n;

export interface NormalizeResult {
  readonly header: FeedHeader;
  readonly rows: number;
  /** Raw records read (the header included), and why the recording ended. */
  readonly records: number;
  /** Depth answers of an update id already seen (stale or repeated polls): they add nothing. */
  readonly staleDepth: number;
  readonly notes: readonly string[];
}

type Level = readonly [string, string];
interface DepthBody {
  lastUpdateId: number;
  E?: number;
  bids: Level[];
  asks: Level[];
}
interface TradeBody {
  id: number;
  price: string;
  qty: string;
  time: number;
  isBuyerMaker: boolean;
}

function parseJson<T>(path: string, record: RawRecordAt, check: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(record.body);
  } catch {
    throw invalidRecord(path, record.line, `the ${record.kind} answer is not JSON`);
  }
  if (!check(value)) throw invalidRecord(path, record.line, `the ${record.kind} answer lacks the fields of its schema`);
  return value;
}

const isLevels = (value: unknown): value is Level[] => Array.isArray(value) && value.every((level) => Array.isArray(level) && typeof level[0] === 'string' && typeof level[1] === 'string');
const isDepth = (value: unknown): value is DepthBody => {
  const depth = value as DepthBody;
  return typeof depth === 'object' && depth !== null && Number.isSafeInteger(depth.lastUpdateId) && isLevels(depth.bids) && isLevels(depth.asks);
};
const isTrades = (value: unknown): value is TradeBody[] =>
  Array.isArray(value) &&
  value.every((trade: TradeBody) => Number.isSafeInteger(trade?.id) && typeof trade.price === 'string' && typeof trade.qty === 'string' && Number.isSafeInteger(trade.time) && typeof trade.isBuyerMaker === 'boolean');

/** What a first, quick pass over a recording finds: counts for the header's notes, and the steps when the header states none. */
function scanRecording(path: string): { notes: string[]; market: FeedMarket } {
  const raw = openRawFeed(path);
  const needSteps = raw.header.market === undefined;
  const prices = new Set<string>();
  const sizes = new Set<string>();
  let tickers = 0;
  let fails = 0;
  for (const record of raw.records()) {
    if (record.kind === 'ticker') tickers += 1;
    else if (record.kind === 'fail') fails += 1;
    else if (needSteps && record.kind === 'depth') {
      const depth = parseJson(path, record, isDepth);
      for (const [price, size] of [...depth.bids, ...depth.asks]) {
        prices.add(price);
        sizes.add(size);
      }
    } else if (needSteps && record.kind === 'trades') {
      for (const trade of parseJson(path, record, isTrades)) {
        prices.add(trade.price);
        sizes.add(trade.qty);
      }
    }
  }
  const end = raw.end();
  const notes: string[] = [];
  if (tickers > 0) notes.push(`${tickers} ticker answers left out (a replay derives the ticker from the trades)`);
  if (fails > 0) notes.push(`${fails} polls failed while recording`);
  if (end.closed === undefined) notes.push(`the recording was cut short after ${end.records} complete records${end.tailBytes > 0 ? ` (a cut last line of ${end.tailBytes} bytes dropped)` : ''}`);
  if (raw.header.market !== undefined) return { notes, market: raw.header.market };
  const tick = inferStep(prices);
  const lot = inferStep(sizes);
  if (tick === undefined || lot === undefined) throw new BaseError('FEED_RECORD_INVALID', `${path}: no prices to infer the tick and lot sizes from, and the recording does not state them`, { details: { path } });
  notes.push(`tick size ${tick.text} and lot size ${lot.text} inferred from the data`);
  return { notes, market: { symbol: raw.header.symbol, tickSize: tick.text, lotSize: lot.text, inferred: true } };
}

/**
 * @example
 * const { rows } = await normalizeRawFeed('out/MON_USDC-1732590000000.raw', 'MON_USDC.feed.arrow');
 */
export async function normalizeRawFeed(path: string, out: string): Promise<NormalizeResult> {
  const scan = scanRecording(path);
  const raw = openRawFeed(path);
  const market = scan.market;
  const ticks = decimalScale(parseStep(market.tickSize));
  const lots = decimalScale(parseStep(market.lotSize));
  const venue = market.venue;
  const notes = scan.notes;
  let exchangeInfo: unknown;
  try {
    exchangeInfo = JSON.parse(raw.exchangeInfo);
  } catch {
    exchangeInfo = undefined;
  }
  const header: FeedHeader = {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market,
    source: {
      kind: 'recording',
      files: [describeInput(path)],
      network: raw.header.network,
      depthLimit: raw.header.plan.depth.limit,
      ...(raw.header.plan.depth.state === 'committed' || raw.header.plan.depth.state === 'finalized' || raw.header.plan.depth.state === 'voted' || raw.header.plan.depth.state === 'proposed'
        ? { depthState: raw.header.plan.depth.state }
        : {}),
      ...(exchangeInfo === undefined || exchangeInfo === null ? {} : { exchangeInfo }),
      notes,
    },
  };
  const writer = createEventFeedWriter(out, header);
  // Own orders and fills are written at the time they took effect, before the recorder heard of them.
  const rows = reorderBuffer(writer, OWN_RECORD_LAG_NS);
  const emit = (kind: FeedEventKind, side: number, exchTs: bigint, localTs: bigint, price: bigint, qty: bigint, id: bigint) => rows.push({ kind, side, exchTs, localTs, price, qty, id });
  const book = { bids: new Map<bigint, bigint>(), asks: new Map<bigint, bigint>() };
  let lastUpdateId = -1;
  let lastTradeId: number | undefined;
  let staleDepth = 0;

  const units = (scale: typeof ticks, text: string, record: RawRecordAt, what: string): bigint => {
    const value = scale.units(text);
    if (value === undefined) throw invalidRecord(path, record.line, `${what} ${JSON.stringify(text.slice(0, 40))} is not a multiple of ${scale === ticks ? `the tick size ${market.tickSize}` : `the lot size ${market.lotSize}`}`);
    return value;
  };
  /** Own records carry price and size units: ticks are price units / the venue's tick. */
  const ownTicks = (priceUnits: string) => BigInt(priceUnits) / BigInt(venue?.tickSize ?? '1');

  const onDepth = (record: RawRecordAt) => {
    const depth = parseJson(path, record, isDepth);
    if (depth.lastUpdateId <= lastUpdateId) {
      staleDepth += 1;
      return;
    }
    const exchTs = msToNs(depth.E ?? record.atMs);
    const localTs = msToNs(record.atMs);
    const first = lastUpdateId < 0;
    if (first) emit(FeedEventKind.BOOK_CLEAR, Side.NONE, exchTs, localTs, 0n, 0n, BigInt(depth.lastUpdateId));
    for (const [side, levels, previous] of [
      [Side.BUY, depth.bids, book.bids],
      [Side.SELL, depth.asks, book.asks],
    ] as const) {
      const next = new Map<bigint, bigint>();
      for (const [priceText, sizeText] of levels) {
        const price = units(ticks, priceText, record, 'price');
        const qty = units(lots, sizeText, record, 'size');
        next.set(price, qty);
        if (previous.get(price) !== qty) emit(FeedEventKind.LEVEL, side, exchTs, localTs, price, qty, BigInt(depth.lastUpdateId));
      }
      for (const price of previous.keys()) if (!next.has(price)) emit(FeedEventKind.LEVEL, side, exchTs, localTs, price, 0n, BigInt(depth.lastUpdateId));
      previous.clear();
      for (const [price, qty] of next) previous.set(price, qty);
    }
    emit(FeedEventKind.CHECKPOINT, Side.NONE, exchTs, localTs, 0n, 0n, BigInt(depth.lastUpdateId));
    lastUpdateId = depth.lastUpdateId;
  };

  const onTrades = (record: RawRecordAt) => {
    const trades = parseJson(path, record, isTrades)
      .filter((trade) => lastTradeId === undefined || trade.id > lastTradeId)
      .sort((a, b) => a.id - b.id);
    if (trades.length === 0) return;
    const localTs = msToNs(record.atMs);
    const first = trades[0]!;
    if (lastTradeId !== undefined && first.id > lastTradeId + 1) {
      emit(FeedEventKind.TRADE_GAP, Side.NONE, msToNs(first.time), localTs, 0n, BigInt(first.id - lastTradeId - 1), BigInt(lastTradeId + 1));
    }
    for (const trade of trades) {
      const side = trade.isBuyerMaker ? Side.SELL : Side.BUY;
      emit(FeedEventKind.TRADE, side, msToNs(trade.time), localTs, units(ticks, trade.price, record, 'price'), units(lots, trade.qty, record, 'size'), BigInt(trade.id));
    }
    lastTradeId = trades[trades.length - 1]!.id;
  };

  /** Feed ids of own orders by key: the venue id, or minus the pending number of an order never named. */
  const ownIds = new Map<string, bigint>();
  /** OWN_ORDER rows of pending orders still held by the reorder buffer, to name in place. */
  const pendingRows = new Map<string, { -readonly [K in keyof FeedEvent]: FeedEvent[K] }>();
  const idOfKey = (key: string) => ownIds.get(key) ?? (key.startsWith('id:') ? BigInt(key.slice(3)) : -BigInt(key.slice(8)));

  const onOwn = (record: RawRecordAt) => {
    if (venue === undefined) throw invalidRecord(path, record.line, 'an own-order record in a recording whose market states no venue parameters');
    const localTs = msToNs(record.atMs);
    const meta = JSON.parse(record.meta) as unknown;
    const sideOf = (side: 'BUY' | 'SELL') => (side === 'BUY' ? Side.BUY : Side.SELL);
    if (record.kind === 'own-order') {
      const order = ownOrderMetaSchema.parse(meta);
      const row = { kind: FeedEventKind.OWN_ORDER as FeedEventKind, side: sideOf(order.side), exchTs: localTs, localTs, price: ownTicks(order.price), qty: BigInt(order.size), id: idOfKey(order.key) };
      if (order.key.startsWith('pending:')) pendingRows.set(order.key, row);
      rows.push(row);
    } else if (record.kind === 'own-order-id') {
      const named = ownOrderIdMetaSchema.parse(meta);
      const row = pendingRows.get(named.key);
      pendingRows.delete(named.key);
      const orderId = BigInt(named.orderId);
      if (row !== undefined && rows.holds(row)) {
        row.id = orderId;
      } else if (row !== undefined) {
        // Written already under its pending id: end that one and place it again under its venue id.
        emit(FeedEventKind.OWN_CANCEL, row.side, localTs, localTs, row.price, row.qty, row.id);
        emit(FeedEventKind.OWN_ORDER, row.side, localTs, localTs, row.price, row.qty, orderId);
      }
      ownIds.set(named.key, orderId);
    } else if (record.kind === 'own-cancel') {
      const cancel = ownCancelMetaSchema.parse(meta);
      pendingRows.delete(cancel.key);
      emit(FeedEventKind.OWN_CANCEL, sideOf(cancel.side), localTs, localTs, ownTicks(cancel.price), BigInt(cancel.remaining), idOfKey(cancel.key));
    } else {
      const fill = ownFillMetaSchema.parse(meta);
      const kind = fill.liquidity === 'maker' ? FeedEventKind.OWN_FILL : FeedEventKind.OWN_TAKER_FILL;
      emit(kind, sideOf(fill.side), msToNs(fill.timeMs), msToNs(fill.timeMs), ownTicks(fill.price), BigInt(fill.size), BigInt(fill.orderId));
    }
  };

  try {
    for (const record of raw.records()) {
      if (record.kind === 'depth') onDepth(record);
      else if (record.kind === 'trades') onTrades(record);
      else if (record.kind.startsWith('own-')) onOwn(record);
    }
    const end = raw.end();
    rows.flush();
    writer.finish();
    return { header, rows: writer.rows, records: end.records, staleDepth, notes };
  } catch (error) {
    writer.abort();
    throw error;
  }
}

