import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NETWORK_DEFAULTS, NETWORK_NAMES } from '../../src/config/network-config.ts';
import * as constants from '../../src/protocol/constants.ts';

const doc = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');

/** The rows of the markdown table that follows `heading`, as arrays of trimmed cells. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

describe('docs/protocol.md', () => {
  it('lists every relay method by its exact name, and no other', () => {
    const documented = tableAfter('### Methods').map((row) => unquote(row[0]!));
    expect(documented.sort()).toEqual(Object.values(constants.RelayMethod).sort());
  });

  it('lists the relay error codes with the same status, retryability and meaning as the code', () => {
    const documented = tableAfter('### Relay error codes').map(([code, http, retryable, meaning]) => [unquote(code!), Number(http), retryable === 'yes', meaning]);
    const inCode = Object.entries(constants.RelayErrorCode).map(([code, v]) => [code, v.http, v.retryable, v.meaning]);
    expect(documented).toEqual(inCode);
  });

  it('gives each constant of the constants table its value in the code', () => {
    const rows = tableAfter('## Constants');
    expect(rows.length).toBeGreaterThan(10);
    for (const [name, value, source] of rows) {
      const key = unquote(name!) as keyof typeof constants;
      expect(constants[key], name).toBe(Number(value));
      expect(['spec', 'venue', 'Binance', 'ours']).toContain(source);
    }
  });

  it('lists each network with the chain id of the code', () => {
    const documented = Object.fromEntries(tableAfter('## Networks and hosts').map(([name, chainId]) => [unquote(name!), Number(chainId)]));
    expect(documented).toEqual(Object.fromEntries(NETWORK_NAMES.map((name) => [name, NETWORK_DEFAULTS[name].chainId])));
  });

  it('names the market data error codes of the code', () => {
    const documented = tableAfter('### Market data errors').map((row) => Number(row[0]));
    expect(documented.sort()).toEqual(Object.values(constants.MarketErrorCode).sort());
  });

  it('documents the market data request weights the code charges', () => {
    const weights = constants.RequestWeight;
    const cases: [number, number, number][] = [[100, 1, 1], [101, 5, 2], [500, 5, 2], [501, 10, 5], [1000, 10, 5], [1001, 20, 5]];
    for (const [limit, depth, klines] of cases) {
      expect([weights.depth(limit), weights.klines(limit)]).toEqual([depth, klines]);
    }
    expect(doc).toContain('depth 1 (limit ≤ 100), 5 (≤ 500), 10 (≤ 1000), 20 (> 1000); klines 1 (≤ 100), 2 (≤ 500), 5 (> 500); trades 1; ticker 1; exchangeInfo 10');
    expect([weights.trades(), weights.ticker(), weights.exchangeInfo()]).toEqual([1, 1, 10]);
  });
});
