/**
 * priceOnTick and priceAtOffset compute the usual case exactly in bigint: the prices must be those of
 * the Decimal definitions (written out below as they were) on any input, near-ties, long
 * coefficients and non-finite values included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { MAX_PRICE_UNITS } from '../../src/core/units.ts';
import { decimalParts, priceAtOffset, priceOnTick } from '../../src/strategy/tick-price.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type Side = 'BUY' | 'SELL';

function referenceOnTick(value: Decimal, tickSize: bigint, side: Side): bigint | undefined {
  if (!value.isFinite()) return undefined;
  const ticks = value.div(tickSize.toString());
  const whole = side === 'BUY' ? ticks.floor() : ticks.ceil();
  const price = BigInt(whole.toFixed(0)) * tickSize;
  return price < 1n || price > MAX_PRICE_UNITS ? undefined : price;
}

function referenceAtOffset(reference: Decimal, bps: number | string | Decimal, side: Side, tickSize: bigint): bigint | undefined {
  const offset = new Decimal(bps).div(10_000);
  const factor = side === 'BUY' ? new Decimal(1).minus(offset) : new Decimal(1).plus(offset);
  return referenceOnTick(reference.times(factor), tickSize, side);
}

const outcome = (run: () => bigint | undefined): string => {
  try {
    return String(run());
  } catch (error) {
    return `throws ${(error as Error).constructor.name}`;
  }
};

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
/** Decimals of every shape: whole, halves (mids), short and long fractions, beyond 100 digits, signs, exponents. */
const decimals = fc.oneof(
  fc.bigInt({ min: -10n, max: 10n ** 12n }).map((n) => new Decimal(n.toString())),
  fc.bigInt({ min: 1n, max: 10n ** 12n }).map((n) => new Decimal(n.toString()).div(2)),
  fc.tuple(digits(1, 12), digits(1, 30)).map(([a, b]) => new Decimal(`${a}.${b}`)),
  fc.tuple(digits(1, 60), digits(1, 80)).map(([a, b]) => new Decimal(`${a}.${b}`)),
  fc.tuple(digits(1, 12), fc.integer({ min: -120, max: 40 })).map(([a, e]) => new Decimal(`${a}e${e}`)),
  fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 10n ** 9n })).map(([n, d]) => new Decimal(n.toString()).div(d.toString())),
  fc.constantFrom(new Decimal(0), new Decimal('-0'), new Decimal(NaN), new Decimal(Infinity), new Decimal(-Infinity), new Decimal('4294967295'), new Decimal('1e-200')),
);
/** A value a hair off a multiple of the tick (from text, so all its digits are kept): where Decimal's rounding could decide the tick. */
const nearTicks = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 1000n }), fc.integer({ min: 1, max: 130 }), fc.boolean())
  .map(([ticks, tick, places, below]) => ({
    value: new Decimal(below ? `${ticks * tick - 1n}.${'9'.repeat(places)}` : `${ticks * tick}.${'0'.repeat(places - 1)}1`),
    tick,
  }));
const ticks = fc.oneof(fc.bigInt({ min: 1n, max: 1000n }), fc.constantFrom(1n, 10n, 7n, 3n));
const sides = fc.constantFrom<Side>('BUY', 'SELL');
const bpsValues = fc.oneof(
  fc.integer({ min: -20_000, max: 20_000 }),
  fc.double({ min: -20_000, max: 20_000, noNaN: true }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, 1e-7, 0.1, -0),
  fc.tuple(digits(1, 5), digits(1, 120)).map(([a, b]) => `${a}.${b}`),
  decimals,
);

describe('tick prices (exact bigint path against the Decimal definitions)', () => {
  it('reads a Decimal as coefficient / 10^scale', () => {
    fc.assert(
      fc.property(decimals.filter((d) => d.isFinite()), (value) => {
        const { coefficient, scale } = decimalParts(value);
        expect(new Decimal(coefficient.toString()).div(new Decimal(10).pow(scale)).eq(value)).toBe(true);
      }),
      fuzzSettings({ numRuns: 2_000 }),
    );
  });

  it('priceOnTick gives the Decimal price', () => {
    fc.assert(
      fc.property(decimals, ticks, sides, (value, tick, side) => {
        expect(outcome(() => priceOnTick(value, tick, side))).toBe(outcome(() => referenceOnTick(value, tick, side)));
      }),
      fuzzSettings({ numRuns: 5_000 }),
    );
    fc.assert(
      fc.property(nearTicks, sides, ({ value, tick }, side) => {
        expect(outcome(() => priceOnTick(value, tick, side))).toBe(outcome(() => referenceOnTick(value, tick, side)));
      }),
      fuzzSettings({ numRuns: 3_000 }),
    );
  });

  it('priceAtOffset gives the Decimal price', () => {
    fc.assert(
      fc.property(decimals, bpsValues, ticks, sides, (reference, bps, tick, side) => {
        expect(outcome(() => priceAtOffset(reference, bps, side, tick))).toBe(outcome(() => referenceAtOffset(reference, bps, side, tick)));
      }),
      fuzzSettings({ numRuns: 5_000 }),
    );
    fc.assert(
      fc.property(nearTicks, sides, ({ value, tick }, side) => {
        expect(outcome(() => priceAtOffset(value, 0, side, tick))).toBe(outcome(() => referenceAtOffset(value, 0, side, tick)));
      }),
      fuzzSettings({ numRuns: 2_000 }),
    );
  });

  it('keeps the documented examples and the errors of a bad tick', () => {
    expect(priceOnTick(new Decimal('350012.5'), 10n, 'BUY')).toBe(350_010n);
    expect(priceAtOffset(new Decimal(350_000), 20, 'SELL', 10n)).toBe(350_700n);
    for (const tick of [0n, -5n]) {
      expect(outcome(() => priceOnTick(new Decimal(5), tick, 'BUY'))).toBe(outcome(() => referenceOnTick(new Decimal(5), tick, 'BUY')));
      expect(outcome(() => priceAtOffset(new Decimal(5), 3, 'SELL', tick))).toBe(outcome(() => referenceAtOffset(new Decimal(5), 3, 'SELL', tick)));
    }
  });
});
