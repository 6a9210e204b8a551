/**
 * A market feed driven by a script instead of pollers: each scripted book or trade is emitted the
 * moment the test (or `checkStrategy`) pushes it, with the streams' usual replay rules.
 */
import { BehaviorSubject, distinctUntilChanged, EMPTY, filter, map, NEVER, ReplaySubject, shareReplay, Subject, type Observable } from 'rxjs';
import { Decimal } from '../core/decimal.ts';
import { toUnits } from '../core/units.ts';
import { bboOf, sameBbo, type Bbo } from '../market/bbo.ts';
import type { FeedHealth } from '../market/feed-health.ts';
import { OrderBook, type BookLevel, type OrderBookView } from '../market/order-book-model.ts';
import type { UnitTrade } from '../market/unit-trade.ts';
import type { StrategyMarket } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';

/** Units as a bigint, or a human decimal string converted exactly at the market's precision. */
export type ScriptedAmount = bigint | string;

/** `[price, size]`, e.g. `['0.0349', '1500']` or `[349_000n, 150_000n]`. */
export type ScriptedLevel = readonly [price: ScriptedAmount, size: ScriptedAmount];

/** A whole book: the market's book from now until the next one. Levels in any order. */
export interface ScriptedBook {
  readonly bids: readonly ScriptedLevel[];
  readonly asks: readonly ScriptedLevel[];
}

/** A public trade on `trades$`. */
export interface ScriptedTrade {
  readonly price: ScriptedAmount;
  readonly qty: ScriptedAmount;
  /** True when the taker sold. Default false. */
  readonly isBuyerMaker?: boolean;
}

export function priceUnits(amount: ScriptedAmount, spec: MarketSpec): bigint {
  return typeof amount === 'bigint' ? amount : toUnits(amount, spec.pricePrecision, 'exact');
}

export function sizeUnits(amount: ScriptedAmount, spec: MarketSpec): bigint {
  return typeof amount === 'bigint' ? amount : toUnits(amount, spec.sizePrecision, 'exact');
}

const levelsOf = (levels: readonly ScriptedLevel[], spec: MarketSpec): BookLevel[] =>
  levels.map(([price, size]) => ({ price: priceUnits(price, spec), size: sizeUnits(size, spec) }));

/** The feed half of a scripted market, and the levers that drive it. */
export class ScriptedMarketFeed {
  readonly spec: MarketSpec;
  readonly feed: StrategyMarket['feed'];
  readonly #books = new ReplaySubject<OrderBookView>(1);
  readonly #trades = new Subject<UnitTrade>();
  readonly #health: BehaviorSubject<FeedHealth>;
  #lastUpdateId = 0;
  #lastTradeId = 0;
  #book: OrderBookView | undefined;

  constructor(spec: MarketSpec) {
    this.spec = spec;
    this.#health = new BehaviorSubject<FeedHealth>({ depth: { status: 'idle' }, trades: { status: 'idle' }, ticker: { status: 'idle' } });
    const book$ = this.#books.asObservable();
    const bbo$: Observable<Bbo> = book$.pipe(map(bboOf), distinctUntilChanged(sameBbo), shareReplay({ bufferSize: 1, refCount: false }));
    const mid$: Observable<Decimal> = bbo$.pipe(
      map((bbo) => (bbo.bid && bbo.ask ? new Decimal((bbo.bid.price + bbo.ask.price).toString()).div(2) : undefined)),
      filter((mid): mid is Decimal => mid !== undefined),
      distinctUntilChanged((a, b) => a.eq(b)),
      shareReplay({ bufferSize: 1, refCount: false }),
    );
    this.feed = {
      book$,
      bbo$,
      mid$,
      trades$: this.#trades.asObservable(),
      // Not scripted: a strategy that needs the ticker or klines gets nothing here.
      ticker$: NEVER,
      klines$: EMPTY,
      health$: this.#health.asObservable(),
    };
  }

  /** The last book pushed. */
  get book(): OrderBookView | undefined {
    return this.#book;
  }

  /** Emits a book; `beforeEmit` sees it first (the simulated account takes its liquidity from it). */
  pushBook(book: ScriptedBook, nowMs: number, beforeEmit?: (view: OrderBookView) => void): OrderBookView {
    this.#lastUpdateId += 1;
    const view = OrderBook.fromLevels(this.spec, { lastUpdateId: this.#lastUpdateId, bids: levelsOf(book.bids, this.spec), asks: levelsOf(book.asks, this.spec) });
    this.#book = view;
    beforeEmit?.(view);
    this.#health.next({ ...this.#health.value, depth: { status: 'ok', at: nowMs } });
    this.#books.next(view);
    return view;
  }

  pushTrade(trade: ScriptedTrade, nowMs: number): UnitTrade {
    this.#lastTradeId += 1;
    const unit: UnitTrade = {
      id: this.#lastTradeId,
      time: nowMs,
      price: priceUnits(trade.price, this.spec),
      qty: sizeUnits(trade.qty, this.spec),
      isBuyerMaker: trade.isBuyerMaker ?? false,
    };
    this.#health.next({ ...this.#health.value, trades: { status: 'ok', at: nowMs } });
    this.#trades.next(unit);
    return unit;
  }
}
