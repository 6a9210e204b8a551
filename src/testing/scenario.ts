/**
 * A scenario of the property kit: a market over time, as data. A market (its spec and its book at the
 * start), a list of regime segments one after the other, and faults of the connection at times. The
 * regimes are few and named so that a failing scenario reads as a story ("a calm minute, then a 40 bp
 * jump, then a one-sided book while outcomes are withheld") and shrinks toward fewer, simpler parts.
 *
 * `expandScenario` turns a scenario into the market's steps: a book every STEP_MS (the script market
 * maker's levels around a mid that the regime moves) and public trades, each at a time after the
 * start, drawn from the scenario's own seed; same scenario, same steps. Prices and sizes are whole
 * units of the market (bigint), never JS numbers.
 */
import type { FaultActionInput } from '../config/fault-config.ts';
import { seededRandom, type RandomSource } from '../core/random.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { ScriptedBook, ScriptedLevel, ScriptedTrade } from './scripted-market.ts';

/** How the market behaves during a segment. */
export type Regime =
  /** The mid wanders a little. */
  | { readonly kind: 'calm' }
  /** The mid moves `bpsPerStep` every step (negative: down). */
  | { readonly kind: 'trend'; readonly bpsPerStep: number }
  /** The mid is pulled back toward the segment's start (`pullPct` of the distance each step), with noise of `noiseBps`. */
  | { readonly kind: 'mean-reversion'; readonly pullPct: number; readonly noiseBps: number }
  /** The mid jumps `jumpBps` (either way) every `everySteps` steps, and the book vanishes for the step before. */
  | { readonly kind: 'jumps'; readonly jumpBps: number; readonly everySteps: number }
  /** One level of the minimum size a side. */
  | { readonly kind: 'thin' }
  /** Twenty levels of large sizes a side. */
  | { readonly kind: 'thick' }
  /** `tradesPerStep` public trades every step, alternating sides. */
  | { readonly kind: 'burst'; readonly tradesPerStep: number }
  /** Only one side has levels. */
  | { readonly kind: 'one-sided'; readonly side: 'bids' | 'asks' }
  /** The tightest book: bid and ask one tick apart. */
  | { readonly kind: 'locked' }
  /** No levels at all. */
  | { readonly kind: 'empty' }
  /** Every market-data poll fails during the segment: the feed goes stale while the market moves on. */
  | { readonly kind: 'stale' };

export type RegimeKind = Regime['kind'];

export interface ScenarioSegment {
  readonly regime: Regime;
  /** Steps of the segment (STEP_MS each). */
  readonly steps: number;
}

/** A fault of the connection, `at` ms after the start. */
export interface ScenarioFault {
  readonly at: number;
  readonly fault: FaultActionInput;
}

export interface Scenario {
  readonly market: MarketSpec;
  /** The mid at the start, price units (on the tick). */
  readonly mid: bigint;
  /** Half the spread at the start, ticks (at least 1). */
  readonly halfSpreadTicks: number;
  /** Levels a side in a normal book. */
  readonly levels: number;
  /** Size of a normal level, in multiples of the market's minimum size. */
  readonly levelSize: number;
  /** The public trades of a step come with this chance, percent. */
  readonly tradePct: number;
  readonly segments: readonly ScenarioSegment[];
  readonly faults: readonly ScenarioFault[];
  /** The run's kill switch is tripped (a command) this many ms after the start; undefined: never. */
  readonly killAt?: number;
  /** Seeds the draws of the expansion (noise, trade sides). */
  readonly seed: number;
}

/** One step of the market: its time after the start and what happens. */
export type ScenarioStep =
  | { readonly at: number; readonly book: ScriptedBook }
  | { readonly at: number; readonly trade: ScriptedTrade }
  | { readonly at: number; readonly fault: FaultActionInput };

/** A step of the market every this many ms. */
export const STEP_MS = 1_000;

/** The scenario's length, ms: its steps plus one step to see the last. */
export function scenarioDurationMs(scenario: Scenario): number {
  return (scenario.segments.reduce((sum, segment) => sum + segment.steps, 0) + 1) * STEP_MS;
}

const BPS = 10_000n;

/** `price` moved by `bps` basis points, rounded to the tick, kept within the market's prices. */
function moved(price: bigint, bps: number, spec: MarketSpec): bigint {
  const next = price + (price * BigInt(Math.trunc(bps * 100))) / (BPS * 100n);
  return onTick(next, spec);
}

function onTick(price: bigint, spec: MarketSpec): bigint {
  const ticks = price / spec.tickSize;
  const floor = ticks < 2n ? 2n : ticks;
  return floor * spec.tickSize;
}

/** A level size: `multiple` x minSize, within maxSize and on the lot. */
function levelSize(spec: MarketSpec, multiple: number): bigint {
  const size = spec.minSize * BigInt(Math.max(1, Math.trunc(multiple)));
  return size > spec.maxSize ? spec.maxSize : size;
}

/** The book of one step: `levels` a side around `mid`, half a spread of `halfSpreadTicks` ticks. */
function bookAround(spec: MarketSpec, mid: bigint, halfSpreadTicks: bigint, levels: number, size: bigint, sides: 'both' | 'bids' | 'asks'): ScriptedBook {
  const bids: ScriptedLevel[] = [];
  const asks: ScriptedLevel[] = [];
  const bestBid = mid - halfSpreadTicks * spec.tickSize;
  const bestAsk = mid + halfSpreadTicks * spec.tickSize;
  for (let level = 0; level < levels; level += 1) {
    const step = BigInt(level) * spec.tickSize;
    if (sides !== 'asks' && bestBid - step > 0n) bids.push([bestBid - step, size]);
    if (sides !== 'bids') asks.push([bestAsk + step, size]);
  }
  return { bids, asks };
}

/** The book when the strategy starts: the scenario's normal book around its mid. */
export function startBook(scenario: Scenario): ScriptedBook {
  const spec = scenario.market;
  return bookAround(spec, onTick(scenario.mid, spec), BigInt(scenario.halfSpreadTicks), scenario.levels, levelSize(spec, scenario.levelSize), 'both');
}

/** A draw in [-1, 1). */
const noise = (random: RandomSource) => random.next() * 2 - 1;

/**
 * The steps of a scenario, in time order (books, trades and faults of one step at one time: book first).
 *
 * @example
 * const steps = expandScenario(scenario);
 * for (const step of steps) harness.schedule(step.at, step);
 */
export function expandScenario(scenario: Scenario): ScenarioStep[] {
  const spec = scenario.market;
  const random = seededRandom(scenario.seed);
  const steps: ScenarioStep[] = [...scenario.faults.map((fault) => ({ at: fault.at, fault: fault.fault }))];
  let mid = onTick(scenario.mid, spec);
  let step = 0;
  for (const { regime, steps: count } of scenario.segments) {
    const anchor = mid;
    if (regime.kind === 'stale') {
      // Every market-data request fails from the segment's first step to its end.
      steps.push({ at: (step + 1) * STEP_MS, fault: { action: 'set', settings: { marketDataErrorRate: 1 } } });
      steps.push({ at: (step + count) * STEP_MS + STEP_MS / 2, fault: { action: 'set', settings: { marketDataErrorRate: 0 } } });
    }
    for (let i = 0; i < count; i += 1) {
      step += 1;
      const at = step * STEP_MS;
      let halfSpread = BigInt(scenario.halfSpreadTicks);
      let levels = scenario.levels;
      let size = levelSize(spec, scenario.levelSize);
      let sides: 'both' | 'bids' | 'asks' = 'both';
      let trades = random.next() * 100 < scenario.tradePct ? 1 : 0;
      switch (regime.kind) {
        case 'calm':
        case 'stale':
          mid = moved(mid, noise(random) * 2, spec);
          break;
        case 'trend':
          mid = moved(mid, regime.bpsPerStep, spec);
          break;
        case 'mean-reversion':
          mid = onTick(mid + ((anchor - mid) * BigInt(Math.trunc(regime.pullPct))) / 100n, spec);
          mid = moved(mid, noise(random) * regime.noiseBps, spec);
          break;
        case 'jumps':
          if ((i + 1) % regime.everySteps === 0) mid = moved(mid, random.next() < 0.5 ? -regime.jumpBps : regime.jumpBps, spec);
          if ((i + 2) % regime.everySteps === 0) levels = 0;
          break;
        case 'thin':
          levels = 1;
          size = spec.minSize;
          break;
        case 'thick':
          levels = 20;
          size = levelSize(spec, scenario.levelSize * 20);
          break;
        case 'burst':
          trades = regime.tradesPerStep;
          break;
        case 'one-sided':
          sides = regime.side;
          break;
        case 'locked':
          // Bid and ask a tick apart: the mid sits on the bid.
          halfSpread = 0n;
          break;
        case 'empty':
          levels = 0;
          break;
      }
      const book = regime.kind === 'locked' ? lockedBook(spec, mid, levels, size) : bookAround(spec, mid, halfSpread, levels, size, sides);
      steps.push({ at, book });
      for (let trade = 0; trade < trades; trade += 1) {
        const buyerMaker = (trade + step) % 2 === 0;
        const price = buyerMaker ? book.bids[0]?.[0] : book.asks[0]?.[0];
        if (price === undefined) continue;
        steps.push({ at, trade: { price, qty: spec.minSize * BigInt(1 + Math.floor(random.next() * 3)), isBuyerMaker: buyerMaker } });
      }
    }
  }
  // Stable: same-time steps keep their order (faults of a time before its book, as written first).
  return steps.sort((a, b) => a.at - b.at);
}

function lockedBook(spec: MarketSpec, mid: bigint, levels: number, size: bigint): ScriptedBook {
  const bids: ScriptedLevel[] = [];
  const asks: ScriptedLevel[] = [];
  for (let level = 0; level < levels; level += 1) {
    const step = BigInt(level) * spec.tickSize;
    if (mid - step > 0n) bids.push([mid - step, size]);
    asks.push([mid + spec.tickSize + step, size]);
  }
  return { bids, asks };
}
