/**
 * The kill switch: once tripped, the risk check refuses every intent that is not risk-reducing and
 * the engine (wired by the caller) sends CancelAll. It trips on:
 * - a command: `trip(reason)`;
 * - a file: its existence, checked at `start()` and then every `filePollMs` on the clock's scheduler;
 * - a signal: `installKillSwitchSignals(killSwitch, { signals: ['SIGUSR2'] })`, wired by the CLI;
 * - drawdown: net PnL (realized + unrealized - fees, raw quote units) at or below its peak minus
 *   `maxDrawdown` (the peak starts at the first value observed);
 * - error rate: failures (rejections, reverts) / submissions within the sliding `errorWindowMs`
 *   at or above `maxErrorRate`, once the window holds at least `minSample` submissions.
 *
 * It trips once: `tripped$` emits the trip and completes (late subscribers still get it), further
 * triggers change nothing, and it never un-trips by itself (a new run starts a new switch).
 */
import { existsSync } from 'node:fs';
import { ReplaySubject, timer, type Observable, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { toUnits } from '../core/units.ts';
import type { RiskConfig } from '../config/run-config.ts';
import type { KillSwitchTrigger } from '../strategy/strategy-context.ts';

export type { KillSwitchTrigger };

export interface KillSwitchTrip {
  readonly trigger: KillSwitchTrigger;
  readonly reason: string;
  /** Clock time of the trip, ms. */
  readonly atMs: number;
  readonly details: Readonly<Record<string, unknown>>;
}

export interface KillSwitchContext {
  readonly clock: Clock;
  readonly logger?: Pick<Logger, 'warn'>;
  /** Whether a file exists. Default `fs.existsSync`. */
  readonly fileExists?: (path: string) => boolean;
}

export interface KillSwitchParameters {
  /** Trip when this file exists. */
  readonly file?: string;
  /** How often to look for the file, ms. Default 1000. */
  readonly filePollMs?: number;
  /** Raw quote units, > 0: trip when net PnL falls this far from its peak. */
  readonly maxDrawdown?: bigint;
  /** Net PnL values to watch for drawdown (subscribed by `start`); `observePnl` works too. */
  readonly pnl$?: Observable<bigint>;
  /** Fraction in (0, 1]: trip when failures / submissions in the window reach it. */
  readonly maxErrorRate?: number;
  /** Sliding window of the error rate, ms. Default 60 000. */
  readonly errorWindowMs?: number;
  /** Fewest submissions in the window before the error rate counts. Default 20. */
  readonly minSample?: number;
}

export const DEFAULT_FILE_POLL_MS = 1000;
export const DEFAULT_ERROR_WINDOW_MS = 60_000;
export const DEFAULT_ERROR_MIN_SAMPLE = 20;

/**
 * The kill-switch parameters of a run file's `risk.killSwitch`; `maxDrawdown` (quote units, human)
 * becomes raw units of the quote token with `quoteDecimals`, rounded down (it trips no later).
 *
 * @example killSwitchParameters(config.risk.killSwitch, 6) // { file, maxDrawdown: 250_000_000n, maxErrorRate }
 */
export function killSwitchParameters(config: RiskConfig['killSwitch'], quoteDecimals: number): KillSwitchParameters {
  if (config === undefined) return {};
  return {
    ...(config.file !== undefined ? { file: config.file } : {}),
    ...(config.maxDrawdown !== undefined ? { maxDrawdown: toUnits(config.maxDrawdown, 10n ** BigInt(quoteDecimals), 'down') } : {}),
    ...(config.maxErrorRate !== undefined ? { maxErrorRate: config.maxErrorRate } : {}),
  };
}

/**
 * The kill switch. Create it with `createKillSwitch`; `start()` begins the file poll and the PnL
 * subscription, `stop()` ends them (both idempotent).
 *
 * @example
 * const killSwitch = createKillSwitch({ clock }, { file: '/tmp/clobbot.stop', maxDrawdown: 500_000_000n });
 * killSwitch.tripped$.subscribe((trip) => engine.submit({ type: 'CancelAll', purpose: 'kill-switch' }));
 * killSwitch.start();
 */
export class KillSwitch {
  readonly #clock: Clock;
  readonly #logger: Pick<Logger, 'warn'> | undefined;
  readonly #fileExists: (path: string) => boolean;
  readonly #params: KillSwitchParameters;
  readonly #tripped$ = new ReplaySubject<KillSwitchTrip>(1);
  #trip: KillSwitchTrip | undefined;
  #subscriptions: Subscription[] = [];
  #running = false;
  #peak: bigint | undefined;
  #submissions: number[] = [];
  #failures: number[] = [];

  constructor(context: KillSwitchContext, params: KillSwitchParameters = {}) {
    this.#clock = context.clock;
    this.#logger = context.logger;
    this.#fileExists = context.fileExists ?? existsSync;
    this.#params = params;
  }

  /** Emits the trip once, then completes. */
  get tripped$(): Observable<KillSwitchTrip> {
    return this.#tripped$.asObservable();
  }

  /** The trip, once tripped. */
  get tripped(): KillSwitchTrip | undefined {
    return this.#trip;
  }

  isTripped(): boolean {
    return this.#trip !== undefined;
  }

  /**
   * Trips the switch (the command trigger, and what every other trigger calls). Returns true when
   * this call tripped it, false when it already was.
   */
  trip(reason: string, trigger: KillSwitchTrigger = 'command', details: Readonly<Record<string, unknown>> = {}): boolean {
    if (this.#trip !== undefined) return false;
    const trip: KillSwitchTrip = { trigger, reason, atMs: this.#clock.now(), details };
    this.#trip = trip;
    this.stop();
    this.#logger?.warn({ trigger, reason, details }, 'kill switch tripped');
    this.#tripped$.next(trip);
    this.#tripped$.complete();
    return true;
  }

  /** Starts the file poll and the PnL subscription. Idempotent; does nothing once tripped. */
  start(): void {
    if (this.#running || this.#trip !== undefined) return;
    this.#running = true;
    const { file, pnl$ } = this.#params;
    if (file !== undefined) {
      const pollMs = this.#params.filePollMs ?? DEFAULT_FILE_POLL_MS;
      this.#subscriptions.push(timer(0, pollMs, this.#clock.scheduler).subscribe(() => this.#checkFile(file)));
      this.#checkFile(file);
    }
    if (pnl$ !== undefined && this.#trip === undefined) this.#subscriptions.push(pnl$.subscribe((pnl) => this.observePnl(pnl)));
  }

  /** Stops the file poll and the PnL subscription. Idempotent. */
  stop(): void {
    this.#running = false;
    const subscriptions = this.#subscriptions;
    this.#subscriptions = [];
    for (const subscription of subscriptions) subscription.unsubscribe();
  }

  #checkFile(file: string): void {
    if (this.#trip === undefined && this.#fileExists(file)) this.trip(`kill file ${file} exists`, 'file', { file });
  }

  /** The highest net PnL observed so far (raw quote units). */
  get peakPnl(): bigint | undefined {
    return this.#peak;
  }

  /** Feeds one net PnL value (raw quote units) to the drawdown trigger. */
  observePnl(pnl: bigint): void {
    if (this.#trip !== undefined) return;
    if (this.#peak === undefined || pnl > this.#peak) this.#peak = pnl;
    const max = this.#params.maxDrawdown;
    if (max === undefined) return;
    const drawdown = this.#peak - pnl;
    if (drawdown >= max) {
      this.trip(`drawdown ${drawdown} from peak ${this.#peak} reached ${max} (raw quote units)`, 'drawdown', {
        peak: this.#peak.toString(),
        pnl: pnl.toString(),
        maxDrawdown: max.toString(),
      });
    }
  }

  /** Counts one submission to the relay. */
  recordSubmission(): void {
    this.#submissions.push(this.#clock.now());
    this.#checkErrorRate();
  }

  /** Counts one failed submission (REJECTED, REVERTED). */
  recordFailure(): void {
    this.#failures.push(this.#clock.now());
    this.#checkErrorRate();
  }

  /** Submissions and failures in the current window, and their ratio (0 without submissions). */
  errorRate(): { readonly submissions: number; readonly failures: number; readonly rate: number } {
    const since = this.#clock.now() - (this.#params.errorWindowMs ?? DEFAULT_ERROR_WINDOW_MS);
    this.#submissions = this.#submissions.filter((at) => at > since);
    this.#failures = this.#failures.filter((at) => at > since);
    const submissions = this.#submissions.length;
    const failures = this.#failures.length;
    return { submissions, failures, rate: submissions === 0 ? 0 : failures / submissions };
  }

  #checkErrorRate(): void {
    const max = this.#params.maxErrorRate;
    if (max === undefined || this.#trip !== undefined) return;
    const { submissions, failures, rate } = this.errorRate();
    const minSample = this.#params.minSample ?? DEFAULT_ERROR_MIN_SAMPLE;
    if (submissions >= minSample && rate >= max) {
      this.trip(`error rate ${failures}/${submissions} reached ${max}`, 'error-rate', { failures, submissions, maxErrorRate: max });
    }
  }
}

/**
 * @example const killSwitch = createKillSwitch({ clock }, killSwitchParameters(config.risk.killSwitch, 6));
 */
export function createKillSwitch(context: KillSwitchContext, params: KillSwitchParameters = {}): KillSwitch {
  return new KillSwitch(context, params);
}

/** What signal handlers are installed on: `process`, or an EventEmitter in tests. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/**
 * Trips the kill switch on each of `signals` (default SIGUSR2). Returns the function that removes
 * the handlers. The caller (the CLI) decides which signals; a SIGINT handler replaces Node's default
 * exit, so the CLI should then stop the run itself after the cancels.
 *
 * @example const uninstall = installKillSwitchSignals(killSwitch, { signals: ['SIGUSR2'] });
 */
export function installKillSwitchSignals(
  killSwitch: Pick<KillSwitch, 'trip'>,
  options: { readonly signals?: readonly NodeJS.Signals[]; readonly source?: SignalSource } = {},
): () => void {
  const source: SignalSource = options.source ?? process;
  const signals = options.signals ?? ['SIGUSR2'];
  const listener = (signal: NodeJS.Signals) => {
    killSwitch.trip(`signal ${signal}`, 'signal', { signal });
  };
  for (const signal of signals) source.on(signal, listener);
  return () => {
    for (const signal of signals) source.off(signal, listener);
  };
}
