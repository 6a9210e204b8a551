/**
 * Markets given whole in a run file, checked against what the exchange host says of them
 * (`GET /api/v3/exchangeInfo`): for a listed symbol, its base and quote assets, and, when the host
 * sends Binance's filters, the price step (`PRICE_FILTER.tickSize` = tickSize / pricePrecision) and
 * the sizes (`LOT_SIZE`: stepSize = one size unit, minQty, maxQty). Values are compared as decimals.
 * A symbol the host does not list, and the precisions (`baseAssetPrecision`: the venue's spec does
 * not say what they count), are not checked.
 */
import { Decimal } from '../../core/decimal.ts';
import { fromUnits } from '../../core/units.ts';
import { lotSizeFilterSchema, priceFilterSchema, type ExchangeInfo } from '../../protocol/market-data.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';

export interface ExchangeInfoMismatch {
  /** Index of the market in the list checked (the run file's `markets`). */
  readonly index: number;
  /** The field of the market at odds with the host, e.g. `['tickSize']`. */
  readonly field: readonly string[];
  readonly message: string;
}

/**
 * Where each market differs from the exchange host's description of it (empty when they agree).
 *
 * @example exchangeInfoMismatches(await client.exchangeInfo(), specs) // [{ index: 0, field: ['tickSize'], message: '…' }]
 */
export function exchangeInfoMismatches(info: ExchangeInfo, specs: readonly MarketSpec[]): ExchangeInfoMismatch[] {
  const mismatches: ExchangeInfoMismatch[] = [];
  specs.forEach((spec, index) => {
    const listed = info.symbols.find((symbol) => symbol.symbol === spec.symbol);
    if (listed === undefined) return;
    const differ = (field: string[], what: string, theirs: string, mine: string) =>
      mismatches.push({ index, field, message: `the exchange host lists ${spec.symbol} with ${what} ${theirs} (GET /api/v3/exchangeInfo); this market says ${mine}` });
    if (listed.baseAsset !== spec.baseToken.symbol) differ(['baseToken', 'symbol'], 'base asset', listed.baseAsset, spec.baseToken.symbol);
    if (listed.quoteAsset !== spec.quoteToken.symbol) differ(['quoteToken', 'symbol'], 'quote asset', listed.quoteAsset, spec.quoteToken.symbol);

    const filters = listed.filters ?? [];
    const price = filters.map((filter) => priceFilterSchema.safeParse(filter)).find((parsed) => parsed.success)?.data;
    const lot = filters.map((filter) => lotSizeFilterSchema.safeParse(filter)).find((parsed) => parsed.success)?.data;
    // Binance: a filter value of 0 disables its rule.
    const compare = (field: keyof MarketSpec, what: string, theirs: string | undefined, units: bigint, precision: 'pricePrecision' | 'sizePrecision') => {
      if (theirs === undefined || new Decimal(theirs).isZero()) return;
      const mine = fromUnits(units, spec[precision]);
      if (!new Decimal(theirs).eq(mine)) differ([field], what, new Decimal(theirs).toFixed(), `${mine} (${units} / ${precision} ${spec[precision]})`);
    };
    compare('tickSize', 'PRICE_FILTER tickSize', price?.tickSize, spec.tickSize, 'pricePrecision');
    compare('sizePrecision', 'LOT_SIZE stepSize', lot?.stepSize, 1n, 'sizePrecision');
    compare('minSize', 'LOT_SIZE minQty', lot?.minQty, spec.minSize, 'sizePrecision');
    compare('maxSize', 'LOT_SIZE maxQty', lot?.maxQty, spec.maxSize, 'sizePrecision');
  });
  return mismatches;
}
