/**
 * The strategy host's side of `ctx.tradingState$` and `ctx.fates$`, with the engine's streams
 * played by hand: which changes of the run's trading state reach the strategy (only changes, HALTED
 * for good, REDUCING which no engine emits yet), and which reports become its fates (its own
 * intents, by identity, once per submission, even one refused during `submit`). The same through
 * the real runtime: trading-state.test.ts and intent-fates.test.ts. And `ctx.reportFigures`: called
 * once at the stop, its figures copied; a callback that throws or returns no flat figures is a located
 * STRATEGY_REPORT_INVALID that neither throws nor fails the run.
 */
import { BehaviorSubject, filter, ignoreElements, map, merge, NEVER, Observable, Subject, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLogger, defineStrategy, z, type Intent, type IntentFate, type IntentReport, type StrategyContext, type TradingState, type IntentFateReport } from 'clobbot';
import { seededRandom, VirtualClock } from 'clobbot/testing';
import { createStrategyHost, type StrategyHostParameters } from '../../src/runtime/strategy-host.ts';

type Fate = IntentFateReport;

/** A CancelAll of every market: a valid intent for a strategy without markets. */
const cancelAll = (purpose: string): Intent => ({ type: 'CancelAll', purpose });

/** A host of a strategy that emits what `emit` gets (and a CancelAll `reaction` when HALTED) and records its context's streams. */
function hosted(overrides: Partial<StrategyHostParameters> = {}) {
  const emit = new Subject<Intent>();
  const states: TradingState[] = [];
  const fates: Fate[] = [];
  const definition = defineStrategy({
    name: 'probe',
    params: z.strictObject({}),
    create: (ctx) =>
      merge(
        ctx.tradingState$.pipe(
          tap((state) => states.push(state)),
          ignoreElements(),
        ),
        ctx.fates$.pipe(
          tap((fate) => fates.push(fate)),
          ignoreElements(),
        ),
        ctx.tradingState$.pipe(
          filter((state) => state.state === 'HALTED'),
          map(() => cancelAll('reaction')),
        ),
        emit,
      ),
  });
  const failures: unknown[] = [];
  const host = createStrategyHost({
    strategy: { name: 'probe', module: 'probe.ts', resolved: 'probe.ts', definition, markets: [], params: {} },
    markets: new Map(),
    clock: new VirtualClock(Date.UTC(2026, 0, 1)),
    random: seededRandom(1),
    logger: createLogger({ level: 'silent' }),
    submit: () => new Promise<IntentFate>(() => undefined),
    reports$: NEVER,
    tradingState$: new BehaviorSubject<TradingState>({ state: 'ACTIVE' }),
    idleWarnMs: 3_600_000,
    onFailure: (error) => failures.push(error),
    onComplete: () => undefined,
    ...overrides,
  });
  return { host, emit, states, fates, failures };
}

describe('strategy host: ctx.tradingState$', () => {
  it("passes on the run's state at once and then only its changes; HALTED stays, and the stop adds nothing after it", () => {
    const run = new BehaviorSubject<TradingState>({ state: 'ACTIVE' });
    const submitted: Intent[] = [];
    const { host, states } = hosted({
      tradingState$: run,
      submit: (intent) => {
        submitted.push(intent);
        return new Promise<IntentFate>(() => undefined);
      },
    });
    host.start();
    expect(states).toEqual([{ state: 'ACTIVE' }]);
    run.next({ state: 'ACTIVE' });
    run.next({ state: 'REDUCING', reason: 'reduce-only' });
    run.next({ state: 'REDUCING', reason: 'reduce-only' });
    run.next({ state: 'REDUCING', reason: 'still reduce-only' });
    run.next({ state: 'HALTED', reason: 'operator', trigger: 'command' });
    run.next({ state: 'HALTED', reason: 'operator', trigger: 'command' });
    run.next({ state: 'ACTIVE' });
    host.stop('its duration ended');
    // Halted by the kill switch the strategy still runs: what it emits is submitted (the engine refuses placements).
    expect(submitted.map((intent) => intent.purpose)).toEqual(['reaction']);
    expect(states).toEqual([
      { state: 'ACTIVE' },
      { state: 'REDUCING', reason: 'reduce-only' },
      { state: 'REDUCING', reason: 'still reduce-only' },
      { state: 'HALTED', reason: 'operator', trigger: 'command' },
    ]);
  });

  it('turns HALTED "the run is stopping" when the host stops, and submits nothing the strategy emits then', () => {
    const submitted: Intent[] = [];
    const { host, emit, states, failures } = hosted({
      submit: (intent) => {
        submitted.push(intent);
        return new Promise<IntentFate>(() => undefined);
      },
    });
    host.start();
    emit.next(cancelAll('before'));
    // The strategy hears HALTED while still subscribed and reacts with a `reaction`: not submitted.
    host.stop('the duration (60 s) ended');
    expect(states).toEqual([{ state: 'ACTIVE' }, { state: 'HALTED', reason: 'the run is stopping: the duration (60 s) ended' }]);
    emit.next(cancelAll('after'));
    expect(submitted.map((intent) => intent.purpose)).toEqual(['before']);
    expect(host.tally.emitted).toBe(1);
    expect(failures).toEqual([]);
  });
});

describe('strategy host: ctx.fates$', () => {
  it('passes on the reports of its own intents only, by identity, once per submission', () => {
    const reports = new Subject<IntentReport>();
    const { host, emit, fates } = hosted({ reports$: reports });
    host.start();
    const mine = cancelAll('mine');
    const twice = cancelAll('twice');
    emit.next(mine);
    emit.next(twice);
    emit.next(twice);
    const confirmed: IntentFate = { status: 'CONFIRMED', requestId: 'r1', txHash: '0x01' };
    // Another strategy's intent, equal in every field, and the engine's own: not this strategy's.
    reports.next({ intent: cancelAll('mine'), fate: confirmed });
    reports.next({ intent: cancelAll('kill-switch'), fate: confirmed });
    expect(fates).toEqual([]);
    reports.next({ intent: mine, fate: confirmed });
    // A second report of an intent submitted once is not its fate.
    reports.next({ intent: mine, fate: confirmed });
    reports.next({ intent: twice, fate: { status: 'SUPERSEDED' } });
    reports.next({ intent: twice, fate: confirmed });
    reports.next({ intent: twice, fate: confirmed });
    expect(fates.map(({ intent, fate }) => [intent, fate.status])).toEqual([
      [mine, 'CONFIRMED'],
      [twice, 'SUPERSEDED'],
      [twice, 'CONFIRMED'],
    ]);
    expect(fates[0]!.intent).toBe(mine);
    expect(fates[0]!.fate).toBe(confirmed);
  });

  it('passes on a fate the engine reports during submit (refused at once), and nothing once stopped', () => {
    const reports = new Subject<IntentReport>();
    const refusedFate: IntentFate = { status: 'REFUSED', code: 'RISK_MAX_ORDER_SIZE', message: 'too big' };
    const { host, emit, fates } = hosted({
      reports$: reports,
      submit: (intent) => {
        reports.next({ intent, fate: refusedFate });
        return Promise.resolve(refusedFate);
      },
    });
    host.start();
    const refused = cancelAll('big');
    emit.next(refused);
    expect(fates).toEqual([{ intent: refused, fate: refusedFate }]);
    host.stop();
    reports.next({ intent: refused, fate: refusedFate });
    expect(fates).toHaveLength(1);
  });
});

describe('strategy host: ctx.reportFigures', () => {
  /** A host of a strategy whose `create` is `create`, with its failures recorded. */
  function reporting(create: (ctx: StrategyContext<Record<string, never>>) => Observable<Intent>) {
    const failures: unknown[] = [];
    const definition = defineStrategy({ name: 'reporter', params: z.strictObject({}), create });
    const host = createStrategyHost({
      strategy: { name: 'rep', module: 'reporter.ts', resolved: 'reporter.ts', definition, markets: [], params: {} },
      markets: new Map(),
      clock: new VirtualClock(Date.UTC(2026, 0, 1)),
      random: seededRandom(1),
      logger: createLogger({ level: 'silent' }),
      submit: () => new Promise<IntentFate>(() => undefined),
      reports$: NEVER,
      tradingState$: new BehaviorSubject<TradingState>({ state: 'ACTIVE' }),
      idleWarnMs: 3_600_000,
      onFailure: (error) => failures.push(error),
      onComplete: () => undefined,
    });
    return { host, failures };
  }

  /** The STRATEGY_REPORT_INVALID of a host whose callback returns `value` (after the stop). */
  function invalidFor(value: unknown) {
    const { host, failures } = reporting((ctx) => {
      ctx.reportFigures(() => value as never);
      return NEVER;
    });
    host.start();
    host.stop();
    expect(failures).toEqual([]);
    const outcome = host.figures();
    if (outcome === undefined || !('error' in outcome)) throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
    expect(outcome.error.code).toBe('STRATEGY_REPORT_INVALID');
    return outcome.error;
  }

  it('calls the callback once, when the host stops, after the strategy was unsubscribed; a copy of what it returned', () => {
    const fills = new Subject<bigint>();
    let calls = 0;
    let subscribed = false;
    const returned = { executed: '0', fills: 0, done: false, note: null as string | null };
    const { host, failures } = reporting(
      (ctx) =>
        new Observable<Intent>(() => {
          subscribed = true;
          let executed = 0n;
          let count = 0;
          const subscription = fills.subscribe((size) => {
            executed += size;
            count += 1;
          });
          ctx.reportFigures(() => {
            calls += 1;
            expect(subscribed).toBe(false);
            return Object.assign(returned, { executed: executed.toString(), fills: count, note: 'final' });
          });
          return () => {
            subscribed = false;
            subscription.unsubscribe();
          };
        }),
    );
    host.start();
    fills.next(5n);
    fills.next(7n);
    expect(host.figures()).toBeUndefined();
    expect(calls).toBe(0);
    host.stop();
    fills.next(100n);
    host.stop();
    expect(calls).toBe(1);
    expect(host.figures()).toEqual({ figures: { executed: '12', fills: 2, done: false, note: 'final' } });
    // Its own object changing afterwards changes nothing.
    returned.executed = '999';
    expect(host.figures()).toEqual({ figures: { executed: '12', fills: 2, done: false, note: 'final' } });
    expect(Object.keys((host.figures() as { figures: object }).figures)).toEqual(['executed', 'fills', 'done', 'note']);
    expect(failures).toEqual([]);
  });

  it('has no figures when the strategy gave no callback; the last callback given is the one called', () => {
    const silent = reporting(() => NEVER);
    silent.host.start();
    silent.host.stop();
    expect(silent.host.figures()).toBeUndefined();

    const twice = reporting((ctx) => {
      ctx.reportFigures(() => ({ which: 'first' }));
      ctx.reportFigures(() => ({ which: 'second' }));
      return NEVER;
    });
    twice.host.start();
    twice.host.stop();
    expect(twice.host.figures()).toEqual({ figures: { which: 'second' } });
  });

  it('reports a callback that throws as STRATEGY_REPORT_INVALID, located, with its cause; the stop and the run go on', () => {
    const boom = new Error('no fills yet\nat line 2');
    const { host, failures } = reporting((ctx) => {
      ctx.reportFigures(() => {
        throw boom;
      });
      return NEVER;
    });
    host.start();
    expect(() => host.stop()).not.toThrow();
    expect(failures).toEqual([]);
    const outcome = host.figures() as { error: { code: string; message: string; cause: unknown; details: unknown } };
    expect(outcome.error.code).toBe('STRATEGY_REPORT_INVALID');
    expect(outcome.error.message).toBe('strategy rep (reporter.ts): its reportFigures callback threw: no fills yet');
    expect(outcome.error.cause).toBe(boom);
    expect(outcome.error.details).toEqual({ strategy: 'rep', module: 'reporter.ts' });
  });

  it('reports figures that are not flat JSON values as STRATEGY_REPORT_INVALID, each problem at its name', () => {
    const error = invalidFor({
      avgPrice: 0.0351,
      executed: 20_000n,
      nested: { a: '1' },
      list: ['1'],
      missing: undefined,
      'bad name': '1',
      multi: 'a\nb',
      huge: Number.MAX_SAFE_INTEGER + 1,
      fine: '0.0351',
    });
    expect(error.details['problems']).toEqual([
      'avgPrice: 0.0351 is not a safe integer (give decimals and large amounts as strings)',
      'executed: a bigint (give it as a decimal string, e.g. with fromUnits)',
      'nested: an object (figures are flat: strings, integers, booleans or null)',
      'list: an array (figures are flat: strings, integers, booleans or null)',
      'missing: undefined (use null for no value)',
      '"bad name": a figure\'s name is 1 to 64 letters, digits, _, . or -, starting with a letter',
      'multi: a string with a line break',
      'huge: 9007199254740992 is not a safe integer (give decimals and large amounts as strings)',
    ]);
    expect(error.message).toContain('strategy rep (reporter.ts): its reportFigures callback returned no flat figures: avgPrice: 0.0351 is not a safe integer');
    expect(invalidFor(undefined).message).toBe('strategy rep (reporter.ts): its reportFigures callback returned no flat figures: expected a record of named figures, got undefined');
    expect(invalidFor(new Map([['a', '1']])).message).toMatch(/not a Map or a class instance/);
    expect(invalidFor(['1']).message).toMatch(/got an array$/);
    expect(invalidFor(Promise.resolve({})).message).toMatch(/not a Map or a class instance/);
    expect(invalidFor(Number.NaN).message).toMatch(/got a number$/);
  });

  it('reports a non-function given to ctx.reportFigures (a plain-JS strategy) at the stop, not at the call', () => {
    const { host, failures } = reporting((ctx) => {
      (ctx.reportFigures as (value: unknown) => void)({ avgPrice: '1' });
      return NEVER;
    });
    host.start();
    expect(failures).toEqual([]);
    host.stop();
    const outcome = host.figures() as { error: { code: string; message: string } };
    expect(outcome.error).toMatchObject({ code: 'STRATEGY_REPORT_INVALID', message: 'strategy rep (reporter.ts): ctx.reportFigures was given a value of type object, not a function' });
  });
});
