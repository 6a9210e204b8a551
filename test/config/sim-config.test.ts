import { describe, expect, it } from 'vitest';
import { formatConfigIssue } from '../../src/config/config-issue.ts';
import { loadConfig, parseConfig } from '../../src/config/load-config.ts';
import { DEFAULT_SIM_CONTRACTS, simConfigSchema } from '../../src/config/sim-config.ts';

const MINIMAL = `tokens:
  - { symbol: MON, address: "0x06bce055fcf8026862983918c037cfbe87879d73", decimals: 18 }
  - { symbol: USDC, address: "0xCDFFAB23A32A262C0BCD6F78E777A1947367A4CF", decimals: 6 }
markets:
  - symbol: MON_USDC
    address: "0xe7908d59f465e1dfe3bf575f93fdd54226797bfe"
    base: MON
    quote: USDC
    pricePrecision: 10000000
    sizePrecision: 100
    tickSize: 10
    minSize: 100
    maxSize: "79228162514264337593543950335"
    makerFeePps: 0
    takerFeePps: 2000
`;

function issues(text: string): string[] {
  const result = parseConfig(text, simConfigSchema, { file: 'sim.yaml', env: {} });
  if (result.ok) throw new Error('expected the sim config to be invalid');
  return result.issues.map(formatConfigIssue);
}

describe('sim config schema', () => {
  it('fills the defaults of the venue', () => {
    const result = parseConfig(MINIMAL, simConfigSchema, { file: 'sim.yaml', env: {} });
    if (!result.ok) throw new Error(result.issues.map(formatConfigIssue).join('\n'));
    const sim = result.value;
    expect(sim.chainId).toBe(31337);
    expect(sim.blockMs).toBe(400);
    expect(sim.stateLagBlocks).toEqual({ voted: 1, finalized: 2, committed: 3 });
    expect(sim.marketData.weightPerMinute).toBe(1200);
    expect(sim.userData.orderEventsCacheMs).toBe(2000);
    expect(sim.contracts).toEqual(DEFAULT_SIM_CONTRACTS);
    expect(sim.funding).toEqual({ default: {}, accounts: [] });
    expect(sim.faults.withholdOutcomesRate).toBe(0);
    // Addresses are normalised to lowercase; units are bigint, up to uint96.
    expect(sim.tokens[1]!.address).toBe('0xcdffab23a32a262c0bcd6f78e777a1947367a4cf');
    const market = sim.markets[0]!;
    expect(market.pricePrecision).toBe(10_000_000n);
    expect(market.maxSize).toBe(2n ** 96n - 1n);
    expect(market.takerFeePps).toBe(2000n);
  });

  it('reads the shipped config/sim.yaml: MON_USDC and WETH_USDC with background flow', async () => {
    const result = await loadConfig('config/sim.yaml', simConfigSchema, { env: {} });
    if (!result.ok) throw new Error(result.issues.map(formatConfigIssue).join('\n'));
    const sim = result.value;
    expect(sim.markets.map((m) => m.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
    for (const market of sim.markets) {
      expect(market.flow?.midPrice).toMatch(/^[0-9]+(\.[0-9]+)?$/);
      expect(market.address).toMatch(/^0x[0-9a-f]{40}$/);
    }
    expect(Object.keys(sim.funding.default).sort()).toEqual(['MON', 'USDC', 'WETH']);
  });

  it('refuses a non-power-of-ten precision, minSize above maxSize, and a symbol that is not BASE_QUOTE', () => {
    const text = MINIMAL.replace('pricePrecision: 10000000', 'pricePrecision: 3000')
      .replace('minSize: 100', 'minSize: "79228162514264337593543950336"')
      .replace('symbol: MON_USDC', 'symbol: USDC_MON');
    expect(issues(text)).toEqual(['sim.yaml:12:14 markets[0].minSize: expected an integer in 1..79228162514264337593543950335']);
    expect(issues(MINIMAL.replace('pricePrecision: 10000000', 'pricePrecision: 3000').replace('symbol: MON_USDC', 'symbol: USDC_MON'))).toEqual([
      'sim.yaml:5:13 markets[0].symbol: expected MON_USDC (base_quote)',
      'sim.yaml:9:21 markets[0].pricePrecision: expected a power of ten (1, 10, 100, …)',
    ]);
  });

  it('refuses a fee above 100 % and money written as a fraction', () => {
    expect(issues(MINIMAL.replace('takerFeePps: 2000', 'takerFeePps: 10000001').replace('tickSize: 10', 'tickSize: 2.5'))).toEqual([
      'sim.yaml:11:15 markets[0].tickSize: expected an integer (a YAML integer or a string of digits), got a fractional number',
      'sim.yaml:15:18 markets[0].takerFeePps: expected an integer in 0..10000000',
    ]);
  });

  it('cross-checks tokens, addresses and funding', () => {
    const text = `${MINIMAL.replace('base: MON', 'base: WETH')}funding:\n  default: { MON: "1", DOGE: "2" }\n`;
    expect(issues(text.replace('symbol: MON_USDC', 'symbol: WETH_USDC'))).toEqual([
      'sim.yaml:7:11 markets[0].base: token WETH is not under tokens',
      'sim.yaml:17:30 funding.default.DOGE: token DOGE is not under tokens',
    ]);
    const duplicate = MINIMAL.replace('"0xe7908d59f465e1dfe3bf575f93fdd54226797bfe"', '"0x06BCE055FCF8026862983918C037CFBE87879D73"');
    expect(issues(duplicate)).toEqual(['sim.yaml:6:14 markets[0].address: address already used by token MON']);
  });

  it('checks the flow model', () => {
    const flow = `    flow:\n      seed: 1\n      midPrice: "0.035"\n      volatility: 1.2\n      orderSize: { min: "500", max: "50" }\n`;
    expect(issues(MINIMAL + flow)).toEqual(['sim.yaml:20:25 markets[0].flow.orderSize.min: expected orderSize.min <= orderSize.max']);
  });
});
