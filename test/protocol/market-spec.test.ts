import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { amountScale, baseRaw, createMarketSpec, feeRaw, marketSpecProblems, quoteRaw } from '../../src/protocol/market-spec.ts';
import { monUsdc, wethUsdc } from '../venue/fixtures.ts';

describe('market spec', () => {
  it('accepts the fixtures and freezes them', () => {
    expect(marketSpecProblems(monUsdc)).toEqual([]);
    const spec = createMarketSpec(monUsdc);
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.baseToken)).toBe(true);
  });

  it.each([
    [{ tickSize: 0n }, 'tickSize must be positive'],
    [{ pricePrecision: 20n }, 'pricePrecision must be a power of ten'],
    [{ sizePrecision: 0n }, 'sizePrecision must be a power of ten'],
    [{ minSize: 0n }, 'minSize must be positive'],
    [{ maxSize: 5n }, 'maxSize must be in minSize..uint96 max'],
    [{ maxSize: 1n << 96n }, 'maxSize must be in minSize..uint96 max'],
    [{ makerFeePps: -1n }, 'makerFeePps must be in 0..10000000'],
    [{ takerFeePps: 10_000_001n }, 'takerFeePps must be in 0..10000000'],
    [{ symbol: 'MONUSDC' }, 'symbol must be BASE_QUOTE of the token symbols'],
    [{ address: '0xB1' as const }, 'address must be a lowercase 20-byte address'],
  ])('reports %o', (change, problem) => {
    expect(marketSpecProblems({ ...monUsdc, ...change })).toContain(problem);
  });

  it('rejects equal base and quote tokens and bad decimals', () => {
    expect(marketSpecProblems({ ...monUsdc, quoteToken: { ...monUsdc.baseToken, symbol: 'USDC' } })).toContain(
      'quoteToken.address must differ from baseToken.address',
    );
    expect(marketSpecProblems({ ...monUsdc, baseToken: { ...monUsdc.baseToken, decimals: 1.5 } })).toContain(
      'baseToken.decimals must be an integer in 0..36',
    );
  });

  it('throws CONFIG_INVALID with every problem', () => {
    try {
      createMarketSpec({ ...monUsdc, tickSize: 0n, minSize: 0n });
      expect.unreachable();
    } catch (error) {
      expect(isBaseError(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as { details: { problems: string[] } }).details.problems).toHaveLength(2);
    }
  });

  it('converts exactly when the scale divides', () => {
    const scale = amountScale(monUsdc);
    expect(scale).toEqual({ quoteMul: 10n, quoteDiv: 1n, baseMul: 10n ** 15n, baseDiv: 1n });
    // 1.25 USDC x 2 MON = 2.5 USDC
    expect(quoteRaw(scale, 125n, 2000n)).toBe(2_500_000n);
    expect(baseRaw(scale, 2000n)).toBe(2n * 10n ** 18n);
  });

  it('floors when it does not', () => {
    const scale = amountScale(wethUsdc);
    expect(scale).toEqual({ quoteMul: 1n, quoteDiv: 100n, baseMul: 1n, baseDiv: 10n });
    // price 1.2345 x size 0.0199 = 0.02456655 USDC -> 24566 raw (floor of 24566.55)
    expect(quoteRaw(scale, 12_345n, 199n)).toBe(24_566n);
    expect(baseRaw(scale, 199n)).toBe(19n);
    expect(baseRaw(scale, 9n)).toBe(0n);
  });

  it('floors fees in pps', () => {
    expect(feeRaw(1_000_000n, 2_500n)).toBe(250n);
    expect(feeRaw(3_999n, 2_500n)).toBe(0n);
    expect(feeRaw(4_000n, 2_500n)).toBe(1n);
    expect(feeRaw(123n, 0n)).toBe(0n);
    expect(feeRaw(123n, 10_000_000n)).toBe(123n);
  });
});
