/**
 * A market given whole in a run file against the exchange host's exchangeInfo: Binance's filters,
 * written the way Binance writes them (trailing zeros), are compared as decimals; what the host does
 * not say is not checked.
 */
import { describe, expect, it } from 'vitest';
import { exchangeInfoMismatches } from '../../src/cli/run/exchange-info-check.ts';
import type { ExchangeInfo } from '../../src/protocol/market-data.ts';
import { monUsdc } from '../venue/fixtures.ts';

/** monUsdc: tick 5 / 100 = 0.05, size unit 1 / 1000 = 0.001, sizes 10..1000000 units = 0.01..1000. */
function info(symbol: Record<string, unknown>): ExchangeInfo {
  return {
    timezone: 'UTC',
    serverTime: 1,
    symbols: [{ symbol: 'MON_USDC', status: 'TRADING', baseAsset: 'MON', quoteAsset: 'USDC', baseAssetPrecision: 3, quoteAssetPrecision: 2, ...symbol }],
  };
}

const PRICE = { filterType: 'PRICE_FILTER', minPrice: '0.05000000', maxPrice: '1000.00000000', tickSize: '0.05000000' };
const LOT = { filterType: 'LOT_SIZE', minQty: '0.01000000', maxQty: '1000.00000000', stepSize: '0.00100000' };

describe('exchangeInfoMismatches', () => {
  it('agrees with a host whose filters say the same, written with trailing zeros, other filters ignored', () => {
    expect(exchangeInfoMismatches(info({ filters: [PRICE, LOT, { filterType: 'MIN_NOTIONAL', minNotional: '5' }] }), [monUsdc])).toEqual([]);
  });

  it('checks nothing the host does not say: no filters, a filter set to 0, an unlisted symbol', () => {
    expect(exchangeInfoMismatches(info({}), [monUsdc])).toEqual([]);
    expect(exchangeInfoMismatches(info({ filters: [{ ...PRICE, tickSize: '0' }] }), [monUsdc])).toEqual([]);
    expect(exchangeInfoMismatches(info({ symbol: 'WETH_USDC', filters: [{ ...PRICE, tickSize: '1' }] }), [monUsdc])).toEqual([]);
  });

  it('names each field at odds with the host', () => {
    const mismatches = exchangeInfoMismatches(
      info({ baseAsset: 'WMON', filters: [{ ...PRICE, tickSize: '0.01' }, { ...LOT, stepSize: '0.01', minQty: '0.02', maxQty: '1000' }] }),
      [monUsdc],
    );
    expect(mismatches).toEqual([
      { index: 0, field: ['baseToken', 'symbol'], message: 'the exchange host lists MON_USDC with base asset WMON (GET /api/v3/exchangeInfo); this market says MON' },
      { index: 0, field: ['tickSize'], message: 'the exchange host lists MON_USDC with PRICE_FILTER tickSize 0.01 (GET /api/v3/exchangeInfo); this market says 0.05 (5 / pricePrecision 100)' },
      { index: 0, field: ['sizePrecision'], message: 'the exchange host lists MON_USDC with LOT_SIZE stepSize 0.01 (GET /api/v3/exchangeInfo); this market says 0.001 (1 / sizePrecision 1000)' },
      { index: 0, field: ['minSize'], message: 'the exchange host lists MON_USDC with LOT_SIZE minQty 0.02 (GET /api/v3/exchangeInfo); this market says 0.01 (10 / sizePrecision 1000)' },
    ]);
  });
});
