/**
 * The StrategyContext port: everything a strategy may see. Market streams of its markets, its own
 * orders by slot, fills, position and balances, the market parameters, the engine's trading state,
 * the fates of its own intents, its validated params, the clock, a seeded random source and a
 * logger; and, besides intents and logs, one way out: its own figures for the run's summary. No
 * network, keys, nonces or signing: the engine owns those. The same strategy code runs live,
 * against the local venue and in backtests.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { MarketFeed } from '../market/create-market-feed.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Intent } from './intents.ts';
import type { StrategyFigures } from './strategy-figures.ts';

/** A live order of the strategy's account (live = its placement was CONFIRMED). */
export interface OwnOrder {
  readonly market: Address;
  /** The venue's order id; undefined until the engine has learnt it. */
  readonly orderId: bigint | undefined;
  /** Maker slot 0..61, when known. */
  readonly slot: number | undefined;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Size units as placed. */
  readonly size: bigint;
  /** Size units still open. */
  readonly remaining: bigint;
}

/** One fill of one of the account's orders. */
export interface OwnFill {
  readonly market: Address;
  readonly orderId: bigint;
  readonly transactionHash: Hex;
  /** Block time, ms. */
  readonly timeMs: number;
  readonly side: OrderSide;
  /** Size units. */
  readonly size: bigint;
  /** Price units. */
  readonly price: bigint;
  /** Raw quote-token units paid in fees. */
  readonly fee: bigint;
  readonly liquidity: 'maker' | 'taker';
}

/** The strategy's own state on one market, as the engine keeps it. */
export interface OwnMarketState {
  readonly market: Address;
  /** MAKER_SLOTS entries: the live order in each slot, or null. */
  readonly slots: readonly (OwnOrder | null)[];
  readonly orders: readonly OwnOrder[];
  /** Requests signed and not yet resolved that touch this market. */
  readonly pendingRequests: number;
  /** Size units, signed (long > 0). */
  readonly position: bigint;
  /** Raw quote units, average cost, gross of fees. */
  readonly realizedPnl: bigint;
  /** Raw quote units. */
  readonly fees: bigint;
}

/** One market as a strategy sees it. */
export interface StrategyMarket {
  readonly spec: MarketSpec;
  /** The market's streams (books, best bid and offer, mid, trades, ticker, klines, health). */
  readonly feed: Pick<MarketFeed, 'book$' | 'bbo$' | 'mid$' | 'trades$' | 'ticker$' | 'klines$' | 'health$'>;
  /** Own orders, position and PnL; the current state at once, then every change. */
  readonly state$: Observable<OwnMarketState>;
  /** Own fills, each once. */
  readonly fills$: Observable<OwnFill>;
}

/**
 * What tripped the kill switch: a command (`engine.kill`), its file, a signal, drawdown or the error
 * rate (the kill switch's own, src/execution/kill-switch.ts, re-exports this one definition).
 */
export type KillSwitchTrigger = 'command' | 'file' | 'signal' | 'drawdown' | 'error-rate';

/**
 * The engine's trading state, as NautilusTrader names it. Whether the strategy's intents can do
 * anything:
 * - `ACTIVE`: intents are taken as usual.
 * - `REDUCING`: only risk-reducing intents (cancels) would be taken; placements are refused. No part
 *   of the engine has such a mode today, so it is not emitted yet; a strategy that handles it
 *   (places nothing new while it lasts) is ready for it.
 * - `HALTED`: the engine places nothing more. The kill switch tripped (`trigger` and `reason` are
 *   its trip's: the engine refuses every placement and cancels every order itself), or the run is
 *   stopping (no `trigger`; the engine cancels every order on the way out, and nothing the strategy
 *   emits from then on is submitted). It never returns to ACTIVE within a run.
 */
export type TradingState =
  | { readonly state: 'ACTIVE' }
  | { readonly state: 'REDUCING'; readonly reason: string }
  | { readonly state: 'HALTED'; readonly reason: string; readonly trigger?: KillSwitchTrigger };

/**
 * Where an intent ended up: exactly one final fate per intent (the engine's, src/execution, which
 * re-exports this one definition).
 */
export type IntentFate =
  | { readonly status: 'CONFIRMED'; readonly requestId: string; readonly txHash: string }
  /**
   * Executed and failed: `code` the venue's relay error code (`EXPECTED_ORDER_ID_MISMATCH`,
   * `INVALID_ORDER`…), null when it gave none (a receipt keeps no reason); `reason` its text.
   */
  | { readonly status: 'REVERTED'; readonly requestId: string; readonly txHash: string; readonly code: string | null; readonly reason: string | null }
  /**
   * Not executed (`txHash` '' when none was ever learnt): `code` says how the engine knows
   * (`INTENT_DROPPED_BY_RELAY`, `INTENT_DROPPED_NONCE_FENCED`, … in docs/errors.md), `reason` in
   * words, `details` the figures behind a reconciliation verdict (the confirmed nonce above it…).
   */
  | {
      readonly status: 'DROPPED';
      readonly requestId: string;
      readonly txHash: string;
      readonly code: string;
      readonly reason: string | null;
      readonly details?: Readonly<Record<string, string | number>>;
    }
  /** The relay rejected every attempt (`code`, e.g. a relay error code). */
  | { readonly status: 'REJECTED'; readonly requestId: string; readonly code: string; readonly message: string }
  /** Refused before signing (`code`: a risk rule such as `RISK_MAX_ORDER_SIZE`, `RISK_KILL_SWITCH`, `ENGINE_STOPPED`…): nothing was signed. */
  | { readonly status: 'REFUSED'; readonly code: string; readonly message: string }
  /** Dropped from the queue before signing (a newer intent of the same market and purpose). */
  | { readonly status: 'SUPERSEDED' }
  /** Nothing to sign: a CancelAll of markets where no order rests. */
  | { readonly status: 'NOTHING_TO_DO'; readonly reason: string };

/** The fate of one intent the strategy emitted; `intent` is the very object it emitted. */
export interface IntentFateReport {
  readonly intent: Intent;
  readonly fate: IntentFate;
}

export interface StrategyContext<P> {
  /** The strategy's params, validated by its own schema. */
  readonly params: P;
  /** Its markets by symbol (`BASE_QUOTE`), in the order of the run file. */
  readonly markets: ReadonlyMap<string, StrategyMarket>;
  readonly clock: Clock;
  /** Seeded: the same run, the same draws. */
  readonly random: RandomSource;
  /** A pino child logger bound to the strategy's name. */
  readonly logger: Logger;
  /**
   * The engine's trading state (see TradingState): ACTIVE at first, the current state at once to
   * every subscriber, then each change (never the same state twice in a row). Changes come as the
   * engine's do, on the run's clock.
   */
  readonly tradingState$: Observable<TradingState>;
  /**
   * The fate of each intent this strategy emitted, once each, when the engine settles it (other
   * strategies' intents and the engine's own are not here). `intent` is the object the strategy
   * emitted, so it can be matched by identity. Hot: fates settled before a subscription are not
   * replayed. A fate can come while the strategy is still emitting the intent (an intent refused at
   * once, e.g. by a risk rule).
   */
  readonly fates$: Observable<IntentFateReport>;
  /**
   * Gives the run's summary the strategy's own figures (see StrategyFigures): `figures` is called
   * once, when the run ends (also when it stops early or the strategy completed or failed), and what
   * it returns is printed under the strategy's name and written to the JSON summary. Call it in
   * `create` (or when the intent stream is subscribed); a later call replaces the callback. A
   * callback that throws or returns anything else than flat figures does not stop the run: the
   * summary shows STRATEGY_REPORT_INVALID instead.
   */
  readonly reportFigures: (figures: () => StrategyFigures) => void;
}
