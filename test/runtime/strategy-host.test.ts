/**
 * The strategy host's side of `ctx.tradingState$` and `ctx.fates$`, with the engine's streams
 * played by hand: which changes of the run's trading state reach the strategy (only changes, HALTED
 * for good, REDUCING which no engine emits yet), and which reports become its fates (its own
 * intents, by identity, once per submission, even one refused during `submit`). The same through
 * the real runtime: trading-state.test.ts and intent-fates.test.ts.
 */
import { BehaviorSubject, filter, ignoreElements, map, merge, NEVER, Subject, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLogger, defineStrategy, z, type Intent, type IntentFate, type IntentReport, type TradingState, type IntentFateReport } from 'clobbot';
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
