/**
 * A MarketDataSource for tests: the transport seam, answering from scripts on a virtual clock.
 * Each method takes a list of answers, one per call (the last one repeats): a value, an error, or
 * `hang` (never answers, until aborted). An answer may carry a latency in virtual ms.
 */
import type { CallOptions, DepthParameters, KlinesParameters, MarketDataSource, TradesParameters } from '../../../src/clients/market-data-source.ts';
import type { Clock } from '../../../src/core/clock.ts';
import type { Depth, ExchangeInfo, Kline, Ticker24hr, Trade } from '../../../src/protocol/market-data.ts';

export type Answer<T> = { readonly value: T; readonly latencyMs?: number } | { readonly error: Error; readonly latencyMs?: number } | 'hang';

export interface Call {
  readonly method: string;
  readonly at: number;
  readonly parameters: unknown;
  aborted: boolean;
}

export class ScriptedSource implements MarketDataSource {
  readonly calls: Call[] = [];
  readonly #scripts = new Map<string, { answers: readonly Answer<unknown>[]; next: number }>();

  constructor(readonly clock: Clock) {}

  script<K extends 'depth' | 'trades' | 'ticker24hr' | 'klines'>(method: K, answers: readonly Answer<Awaited<ReturnType<MarketDataSource[K]>>>[]): this {
    this.#scripts.set(method, { answers, next: 0 });
    return this;
  }

  callsOf(method: string): Call[] {
    return this.calls.filter((call) => call.method === method);
  }

  #answer<T>(method: string, parameters: unknown, options: CallOptions | undefined): Promise<T> {
    const call: Call = { method, at: this.clock.now(), parameters, aborted: false };
    this.calls.push(call);
    const script = this.#scripts.get(method);
    if (!script || script.answers.length === 0) return Promise.reject(new Error(`no script for ${method}`));
    const answer = script.answers[Math.min(script.next, script.answers.length - 1)]!;
    script.next++;
    return new Promise<T>((resolve, reject) => {
      options?.signal?.addEventListener('abort', () => {
        call.aborted = true;
        reject(new Error('aborted'));
      });
      if (answer === 'hang') return;
      const settle = () => ('value' in answer ? resolve(answer.value as T) : reject(answer.error));
      if (answer.latencyMs) this.clock.scheduler.schedule(settle, answer.latencyMs);
      else settle();
    });
  }

  depth(parameters: DepthParameters, options?: CallOptions): Promise<Depth> {
    return this.#answer('depth', parameters, options);
  }

  trades(parameters: TradesParameters, options?: CallOptions): Promise<Trade[]> {
    return this.#answer('trades', parameters, options);
  }

  ticker24hr(parameters: { readonly symbol: string }, options?: CallOptions): Promise<Ticker24hr> {
    return this.#answer('ticker24hr', parameters, options);
  }

  klines(parameters: KlinesParameters, options?: CallOptions): Promise<Kline[]> {
    return this.#answer('klines', parameters, options);
  }

  exchangeInfo(options?: CallOptions): Promise<ExchangeInfo> {
    return this.#answer('exchangeInfo', {}, options);
  }
}

/** Lets promise callbacks run (the source answers through promises). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Advances a virtual clock to `now + ms`, stopping at each due action and letting promises
 * settle in between, as a live event loop would.
 */
export async function runFor(clock: { now(): number; advanceTo(t: number): void; nextDueTime(): number | undefined }, ms: number): Promise<void> {
  const end = clock.now() + ms;
  await settle();
  for (;;) {
    const next = clock.nextDueTime();
    if (next === undefined || next > end) break;
    clock.advanceTo(Math.max(next, clock.now()));
    await settle();
  }
  clock.advanceTo(end);
  await settle();
}
