/**
 * fast-check arbitraries of the property kit, valid by construction: market parameters, books valid
 * for a market (sorted, uncrossed, on the tick, sizes in bounds), trade tapes consistent with a book,
 * strategy params drawn from the strategy's own zod schema within bounds the author gives, the
 * connection's faults, and whole scenarios over time (src/testing/scenario.ts).
 *
 * Shrinking goes toward simpler cases: fewer segments and faults (arrays shrink toward empty), the
 * first regime of the list ('calm': a cross-shrinking `fc.oneof` goes toward its first), shorter segments and
 * smaller numbers.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { Decimal } from '../core/decimal.ts';
import { BaseError } from '../core/base-error.ts';
import type { FaultActionInput } from '../config/fault-config.ts';
import type { Address } from '../protocol/encoding.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { MAX_PRICE_UNITS } from '../core/units.ts';
import { STEP_MS, type Regime, type Scenario, type ScenarioFault, type ScenarioSegment } from './scenario.ts';
import type { ScriptedBook, ScriptedLevel, ScriptedTrade } from './scripted-market.ts';

const address = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}` as Address;
const pow10 = (n: number) => 10n ** BigInt(n);

/**
 * Market parameters: price and size precisions, tick, size bounds and fees of a valid MarketSpec
 * (`marketSpecIssues` finds nothing), on a market named BASE_QUOTE.
 */
export function marketSpecArbitrary(): fc.Arbitrary<MarketSpec> {
  return fc
    .record({
      pricePlaces: fc.integer({ min: 2, max: 9 }),
      tickPlaces: fc.integer({ min: 0, max: 3 }),
      sizePlaces: fc.integer({ min: 0, max: 6 }),
      minSizePlaces: fc.integer({ min: 0, max: 3 }),
      baseDecimals: fc.integer({ min: 6, max: 18 }),
      quoteDecimals: fc.integer({ min: 2, max: 18 }),
      makerFeePps: fc.integer({ min: 0, max: 2_000 }),
      takerFeePps: fc.integer({ min: 0, max: 10_000 }),
    })
    .map(({ pricePlaces, tickPlaces, sizePlaces, minSizePlaces, baseDecimals, quoteDecimals, makerFeePps, takerFeePps }) => {
      const minSize = pow10(Math.min(minSizePlaces, sizePlaces + 2));
      return {
        symbol: 'BASE_QUOTE',
        address: address(0xb0),
        baseToken: { address: address(0xa0), symbol: 'BASE', decimals: Math.max(baseDecimals, sizePlaces) },
        quoteToken: { address: address(0xa1), symbol: 'QUOTE', decimals: quoteDecimals },
        pricePrecision: pow10(pricePlaces),
        sizePrecision: pow10(sizePlaces),
        tickSize: pow10(Math.min(tickPlaces, pricePlaces - 1)),
        minSize,
        maxSize: minSize * 10n ** 9n,
        makerFeePps: BigInt(makerFeePps),
        takerFeePps: BigInt(takerFeePps),
      };
    });
}

/** A mid price for `spec`: on the tick, between 1,000 and 1,000,000 ticks (and within uint32 price units). */
export function midArbitrary(spec: MarketSpec): fc.Arbitrary<bigint> {
  const maxTicks = (MAX_PRICE_UNITS / 4n) / spec.tickSize;
  const high = maxTicks < 1_000_000n ? maxTicks : 1_000_000n;
  return fc.bigInt({ min: 1_000n, max: high }).map((ticks) => ticks * spec.tickSize);
}

/**
 * An order book valid for `spec`: bids below asks (uncrossed), best first, distinct prices on the
 * tick, sizes within the market's bounds. Shrinks toward fewer, smaller levels.
 */
export function bookArbitrary(spec: MarketSpec, options: { readonly maxLevels?: number } = {}): fc.Arbitrary<ScriptedBook> {
  const maxLevels = options.maxLevels ?? 10;
  const size = fc.bigInt({ min: 1n, max: 1_000n }).map((multiple) => {
    const units = spec.minSize * multiple;
    return units > spec.maxSize ? spec.maxSize : units;
  });
  const gaps = fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), size), { maxLength: maxLevels });
  return fc.tuple(midArbitrary(spec), fc.integer({ min: 1, max: 20 }), gaps, gaps).map(([mid, halfSpread, bidGaps, askGaps]) => {
    const bids: ScriptedLevel[] = [];
    const asks: ScriptedLevel[] = [];
    let bid = mid - BigInt(halfSpread) * spec.tickSize;
    for (const [gap, units] of bidGaps) {
      if (bid <= 0n) break;
      bids.push([bid, units]);
      bid -= BigInt(gap) * spec.tickSize;
    }
    let ask = mid + BigInt(halfSpread) * spec.tickSize;
    for (const [gap, units] of askGaps) {
      asks.push([ask, units]);
      ask += BigInt(gap) * spec.tickSize;
    }
    return { bids, asks };
  });
}

/**
 * Public trades consistent with `book`: each at a price of the book's levels (sells at bids, buys at
 * asks), no larger than the level it meets.
 */
export function tapeArbitrary(spec: MarketSpec, book: ScriptedBook, options: { readonly maxTrades?: number } = {}): fc.Arbitrary<ScriptedTrade[]> {
  const sides = [...book.bids.map((level) => ({ level, isBuyerMaker: true })), ...book.asks.map((level) => ({ level, isBuyerMaker: false }))];
  if (sides.length === 0) return fc.constant([]);
  return fc.array(
    fc.tuple(fc.nat(sides.length - 1), fc.bigInt({ min: 1n, max: 1_000n })).map(([pick, multiple]): ScriptedTrade => {
      const { level, isBuyerMaker } = sides[pick]!;
      const levelSize = BigInt(level[1]);
      const wanted = spec.minSize * multiple;
      return { price: level[0], qty: wanted > levelSize ? levelSize : wanted, isBuyerMaker };
    }),
    { maxLength: options.maxTrades ?? 20 },
  );
}

/** How one param is drawn: a number range, a decimal range on a step (human text), or a list. */
export type ParamBound =
  | readonly [min: number, max: number]
  | { readonly min: string; readonly max: string; readonly step: string }
  | { readonly oneOf: readonly unknown[] };

interface ZodIntrospection {
  readonly _zod: { readonly def: { readonly type: string; readonly innerType?: unknown; readonly in?: unknown; readonly defaultValue?: unknown } };
  readonly shape?: Readonly<Record<string, unknown>>;
  readonly minValue?: number | null;
  readonly maxValue?: number | null;
  readonly isInt?: boolean;
  readonly options?: readonly unknown[];
}

/** The schema under defaults, optionals and pipes, and whether a value may be left out. */
function unwrap(schema: unknown): { readonly core: ZodIntrospection; readonly optional: boolean } {
  let core = schema as ZodIntrospection;
  let optional = false;
  for (;;) {
    const { type, innerType } = core._zod.def;
    if (type === 'default' || type === 'prefault' || type === 'optional') {
      optional = true;
      core = innerType as ZodIntrospection;
    } else return { core, optional };
  }
}

function boundArbitrary(name: string, bound: ParamBound): fc.Arbitrary<unknown> {
  if (Array.isArray(bound)) {
    const [min, max] = bound as readonly [number, number];
    return Number.isInteger(min) && Number.isInteger(max) ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  }
  if ('oneOf' in bound) return fc.constantFrom(...bound.oneOf);
  const { min, max, step } = bound as { readonly min: string; readonly max: string; readonly step: string };
  const low = new Decimal(min);
  const stepSize = new Decimal(step);
  if (!stepSize.gt(0) || new Decimal(max).lt(low)) throw new BaseError('STRATEGY_CHECK_INVALID', `the bound of param ${name} is empty or its step is not positive`);
  const steps = BigInt(new Decimal(max).minus(low).div(stepSize).floor().toFixed(0));
  return fc.bigInt({ min: 0n, max: steps }).map((n) => low.plus(stepSize.times(n.toString())).toFixed());
}

/**
 * Params of a strategy drawn from its own zod object schema: each field from the author's bound
 * when given, else from the schema (a number's min and max, an enum's options, a boolean), else left
 * at its default. A required field the schema cannot bound (a decimal text) needs a bound: without
 * one, STRATEGY_CHECK_INVALID names it. Every value drawn passes the schema (drawn values that do
 * not, for a cross-field rule of the schema, are skipped).
 *
 * @example paramsArbitrary(marketMakerParams, { size: { min: '100', max: '5000', step: '100' }, maxInventory: { min: '5000', max: '50000', step: '1000' } })
 */
export function paramsArbitrary<S extends z.ZodType>(schema: S, bounds: Readonly<Record<string, ParamBound>> = {}): fc.Arbitrary<z.input<S>> {
  const { core } = unwrap(schema);
  if (core.shape === undefined) throw new BaseError('STRATEGY_CHECK_INVALID', 'paramsArbitrary takes a strategy whose params are a zod object');
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, field] of Object.entries(core.shape)) {
    const bound = bounds[name];
    if (bound !== undefined) {
      fields[name] = boundArbitrary(name, bound);
      continue;
    }
    const { core: inner, optional } = unwrap(field);
    const type = inner._zod.def.type;
    if (type === 'number' && inner.minValue != null && inner.maxValue != null && Number.isFinite(inner.minValue) && Number.isFinite(inner.maxValue)) {
      fields[name] = inner.isInt === true ? fc.integer({ min: inner.minValue, max: inner.maxValue }) : fc.double({ min: inner.minValue, max: inner.maxValue, noNaN: true });
    } else if (type === 'enum' && inner.options !== undefined) fields[name] = fc.constantFrom(...inner.options);
    else if (type === 'boolean') fields[name] = fc.boolean();
    else if (!optional) throw new BaseError('STRATEGY_CHECK_INVALID', `param ${name} needs a bound: its schema does not say which values to try`, { details: { param: name } });
  }
  const unknown = Object.keys(bounds).filter((name) => !(name in core.shape!));
  if (unknown.length > 0) throw new BaseError('STRATEGY_CHECK_INVALID', `bounds for params the strategy does not have: ${unknown.join(', ')}`);
  return fc.record(fields).filter((params) => schema.safeParse(params).success) as fc.Arbitrary<z.input<S>>;
}

/** `segments` with their lengths scaled to `steps` in all (each at least one step; the last takes the rest). */
function scaledSegments(segments: readonly ScenarioSegment[], steps: number): ScenarioSegment[] {
  const drawn = segments.reduce((sum, segment) => sum + segment.steps, 0);
  let left = steps;
  return segments.map((segment, index) => {
    const share = index === segments.length - 1 ? left : Math.max(1, Math.min(left - (segments.length - 1 - index), Math.floor((segment.steps * steps) / drawn)));
    left -= share;
    return { ...segment, steps: share };
  });
}

/** Every regime; the first is where shrinking goes. */
export function regimeArbitrary(): fc.Arbitrary<Regime> {
  // Cross-shrink: a failing scenario's regime shrinks toward the first one ('calm'), not only within its own kind.
  return fc.oneof(
    { withCrossShrink: true },
    fc.constant<Regime>({ kind: 'calm' }),
    fc.integer({ min: -40, max: 40 }).map((bpsPerStep): Regime => ({ kind: 'trend', bpsPerStep })),
    fc.record({ pullPct: fc.integer({ min: 5, max: 50 }), noiseBps: fc.integer({ min: 1, max: 30 }) }).map((regime): Regime => ({ kind: 'mean-reversion', ...regime })),
    fc.record({ jumpBps: fc.integer({ min: 20, max: 500 }), everySteps: fc.integer({ min: 2, max: 30 }) }).map((regime): Regime => ({ kind: 'jumps', ...regime })),
    fc.constant<Regime>({ kind: 'thin' }),
    fc.constant<Regime>({ kind: 'thick' }),
    fc.integer({ min: 2, max: 8 }).map((tradesPerStep): Regime => ({ kind: 'burst', tradesPerStep })),
    fc.constantFrom<'bids' | 'asks'>('bids', 'asks').map((side): Regime => ({ kind: 'one-sided', side })),
    fc.constant<Regime>({ kind: 'locked' }),
    fc.constant<Regime>({ kind: 'empty' }),
    fc.constant<Regime>({ kind: 'stale' }),
  );
}

/** One fault of the connection (the venue's fault actions), the mildest first. */
export function faultArbitrary(): fc.Arbitrary<FaultActionInput> {
  const count = fc.integer({ min: 1, max: 4 });
  return fc.oneof(
    { withCrossShrink: true },
    count.map((n): FaultActionInput => ({ action: 'delay-outcomes', count: n, delayMs: 2_000 })),
    count.map((n): FaultActionInput => ({ action: 'duplicate-outcomes', count: n })),
    count.map((n): FaultActionInput => ({ action: 'reorder-outcomes', count: n })),
    count.map((n): FaultActionInput => ({ action: 'delay-order-events', count: n, delayMs: 3_000 })),
    count.map((n): FaultActionInput => ({ action: 'withhold-outcomes', count: n })),
    count.map((n): FaultActionInput => ({ action: 'answer-unknown', count: n })),
    fc.tuple(count, fc.constantFrom('INTERNAL_ERROR' as const, 'RATE_LIMITED' as const)).map(([n, code]): FaultActionInput => ({ action: 'answer-rejected', count: n, code, retryAfterMs: 1_000 })),
    count.map((n): FaultActionInput => ({ action: 'rate-limit-market-data', count: n, retryAfterSec: 1 })),
    count.map((n): FaultActionInput => ({ action: 'fail-market-data', count: n })),
    fc.constant<FaultActionInput>({ action: 'drop-connections' }),
    fc.constant<FaultActionInput>({ action: 'expire-tokens' }),
  );
}

export interface ScenarioArbitraryOptions {
  /** The market: fixed, or drawn (default: drawn with marketSpecArbitrary). */
  readonly market?: MarketSpec;
  /** The mid at the start (price units); default drawn for the market. */
  readonly mid?: bigint;
  /** Total steps of a scenario at most (STEP_MS each); default 600 (ten minutes). */
  readonly maxSteps?: number;
  /** Exactly this many steps (the segments' lengths scaled to it), e.g. 600 for ten-minute scenarios. */
  readonly steps?: number;
  /** Segments at most; default 6. */
  readonly maxSegments?: number;
  /** Faults at most; default 4; 0 for none. */
  readonly maxFaults?: number;
  /** False: the kill switch never trips. Default: it trips in one run of five. */
  readonly kill?: boolean;
  /** The regimes to draw from; default all. */
  readonly regimes?: fc.Arbitrary<Regime>;
}

/**
 * Whole scenarios over time: a market, its start, segments of regimes and faults of the connection.
 *
 * @example fc.assert(fc.asyncProperty(scenarioArbitrary({ market: monUsdc }), async (scenario) => { … }))
 */
export function scenarioArbitrary(options: ScenarioArbitraryOptions = {}): fc.Arbitrary<Scenario> {
  const maxSteps = options.maxSteps ?? 600;
  const maxSegments = options.maxSegments ?? 6;
  const maxFaults = options.maxFaults ?? 4;
  const market = options.market === undefined ? marketSpecArbitrary() : fc.constant(options.market);
  const segment = fc.record({ regime: options.regimes ?? regimeArbitrary(), steps: fc.integer({ min: 1, max: Math.max(1, Math.floor(maxSteps / maxSegments)) }) });
  return market.chain((spec) =>
    fc
      .record({
        mid: options.mid === undefined ? midArbitrary(spec) : fc.constant(options.mid),
        halfSpreadTicks: fc.integer({ min: 1, max: 10 }),
        levels: fc.integer({ min: 1, max: 10 }),
        levelSize: fc.integer({ min: 1, max: 50 }),
        tradePct: fc.integer({ min: 0, max: 80 }),
        segments: fc.array(segment, { minLength: 1, maxLength: maxSegments }),
        faultsAt: fc.array(fc.tuple(fc.nat(maxSteps * STEP_MS), faultArbitrary()), { maxLength: maxFaults }),
        // One run in five trips the kill switch (none is where shrinking goes).
        killAt: options.kill === false ? fc.constant(null) : fc.option(fc.nat(maxSteps * STEP_MS), { freq: 4 }),
        seed: fc.nat(),
      })
      .map(({ faultsAt, segments: drawn, killAt, ...rest }): Scenario => {
        const segments = options.steps === undefined ? drawn : scaledSegments(drawn, options.steps);
        const durationMs = (segments.reduce((sum, entry) => sum + entry.steps, 0) + 1) * STEP_MS;
        // Faults fall within the scenario, in time order.
        const faults: ScenarioFault[] = faultsAt.map(([at, fault]) => ({ at: at % durationMs, fault })).sort((a, b) => a.at - b.at);
        return { market: spec, ...rest, segments: segments as ScenarioSegment[], faults, ...(killAt === null ? {} : { killAt: killAt % durationMs }) };
      }),
  );
}
