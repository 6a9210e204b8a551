import { toPriceUnits, toSizeUnits, fromUnits } from '../src/core/units.ts';
import type { Benchmark } from './harness.ts';

const grid = { pricePrecision: 10_000n, tickSize: 5n };
const prices = Array.from({ length: 10_000 }, (_, i) => `${1 + i / 7}`.slice(0, 10));

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'units: human price -> tick-rounded price units',
    unit: 'conversions',
    run() {
      for (const price of prices) toPriceUnits(price, grid, 'sell');
      return prices.length;
    },
  },
  {
    name: 'units: size units -> human string -> size units',
    unit: 'round trips',
    run() {
      for (let i = 1; i <= 10_000; i++) toSizeUnits(fromUnits(BigInt(i), 1000n), 1000n);
      return 10_000;
    },
  },
];
