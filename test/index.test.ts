import * as api from 'clobbot';
import * as strategy from 'clobbot/strategy';
import * as testing from 'clobbot/testing';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names from clobbot (a change here is an API change: review it)', () => {
    expect(Object.keys(api).sort()).toMatchSnapshot();
  });

  it('exports exactly these names from clobbot/testing', () => {
    expect(Object.keys(testing).sort()).toMatchSnapshot();
  });

  it('exports from clobbot/strategy what a strategy module needs, each the very binding clobbot exports', () => {
    expect(Object.keys(strategy).sort()).toEqual([
      'BarBuilder', 'BaseError', 'Decimal', 'MAKER_SLOTS', 'MAX_PRICE_UNITS', 'MAX_SIZE_UNITS', 'buildBars', 'createQuoteManager', 'decimalAmount',
      'defineStrategy', 'durationMs', 'fromUnits', 'isBaseError', 'isRiskReducing', 'isStrategyDefinition', 'planQuotes', 'priceAtOffset',
      'priceOnTick', 'priceToHuman', 'roundPriceToTick', 'signedDecimalAmount', 'sizeToHuman', 'toPriceUnits', 'toSignedUnits', 'toSizeUnits',
      'toUnits', 'z',
    ]);
    // The same objects, so `instanceof BaseError` and `isStrategyDefinition` agree whichever entry a module imports.
    for (const [name, value] of Object.entries(strategy)) expect((api as Record<string, unknown>)[name], name).toBe(value);
  });

  it('resolves `clobbot` to this repository, as users import it', () => {
    expect(api.MAKER_SLOTS).toBe(62);
    expect(new api.BaseError('CLI_USAGE', 'x')).toBeInstanceOf(Error);
  });
});
