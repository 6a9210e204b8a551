/**
 * Health of a market feed, per polled source: is it running, is its data fresh, did trades go
 * missing. `health$` of the feed emits a `FeedHealth` on every change.
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import type { Logger } from '../core/logger.ts';
import type { PolledSource } from './market-feed-plan.ts';
import type { TradeGap } from './operators/dedupe-trades.ts';
import type { PollFailure } from './operators/poll.ts';

export type SourceHealth =
  /** Not polled: nothing subscribes to its streams. */
  | { readonly status: 'idle' }
  /** Polling started at `since`; no answer yet. */
  | { readonly status: 'pending'; readonly since: number }
  /** The last poll answered, at `at`. */
  | { readonly status: 'ok'; readonly at: number }
  /**
   * Polls fail since `since` (the first failure of the run, clock time): the stream shows data as
   * of `lastOkAt` (undefined: never had any). `error` is the last failure; the next attempt is at `retryAt`.
   */
  | {
      readonly status: 'stale';
      readonly since: number;
      readonly error: unknown;
      readonly failures: number;
      readonly retryAt: number;
      readonly lastOkAt: number | undefined;
    }
  /** Trades: the poll at `at` answered, but trades `expected` .. `got - 1` were never seen. */
  | { readonly status: 'gap'; readonly at: number; readonly expected: number; readonly got: number };

export interface FeedHealth {
  readonly depth: SourceHealth;
  readonly trades: SourceHealth;
  readonly ticker: SourceHealth;
  /** Only when the plan polls klines. */
  readonly klines?: SourceHealth;
}

const IDLE: SourceHealth = { status: 'idle' };

/** The feed's record of its sources' health; logs each change of status. */
export class FeedHealthBoard {
  readonly #subject: BehaviorSubject<FeedHealth>;
  readonly #lastOkAt = new Map<PolledSource, number>();
  readonly #log: Logger;

  constructor(sources: readonly PolledSource[], log: Logger) {
    const initial: Partial<Record<PolledSource, SourceHealth>> = {};
    for (const source of sources) initial[source] = IDLE;
    this.#subject = new BehaviorSubject(initial as FeedHealth);
    this.#log = log;
  }

  /** Current health, then every change. */
  get health$(): Observable<FeedHealth> {
    return this.#subject.asObservable();
  }

  get current(): FeedHealth {
    return this.#subject.getValue();
  }

  #set(source: PolledSource, health: SourceHealth): void {
    this.#subject.next({ ...this.#subject.getValue(), [source]: health });
  }

  #get(source: PolledSource): SourceHealth {
    return this.#subject.getValue()[source] ?? IDLE;
  }

  started(source: PolledSource, now: number): void {
    this.#set(source, { status: 'pending', since: now });
  }

  stopped(source: PolledSource): void {
    this.#set(source, IDLE);
  }

  ok(source: PolledSource, at: number): void {
    const previous = this.#get(source);
    if (previous.status === 'stale') this.#log.info({ source, since: previous.since, failures: previous.failures }, 'market source recovered');
    this.#lastOkAt.set(source, at);
    this.#set(source, { status: 'ok', at });
  }

  failed(source: PolledSource, failure: PollFailure): void {
    const previous = this.#get(source);
    const since = previous.status === 'stale' ? previous.since : failure.at;
    if (previous.status !== 'stale') this.#log.warn({ source, err: failure.error, retryInMs: failure.retryInMs }, 'market source poll failed');
    else this.#log.debug({ source, failures: failure.failures, retryInMs: failure.retryInMs }, 'market source still failing');
    this.#set(source, {
      status: 'stale',
      since,
      error: failure.error,
      failures: failure.failures,
      retryAt: failure.at + failure.retryInMs,
      lastOkAt: this.#lastOkAt.get(source),
    });
  }

  gap(source: PolledSource, gap: TradeGap, at: number): void {
    this.#log.warn({ source, expected: gap.expected, got: gap.got, missing: gap.got - gap.expected }, 'market trades gap');
    this.#lastOkAt.set(source, at);
    this.#set(source, { status: 'gap', at, expected: gap.expected, got: gap.got });
  }
}
