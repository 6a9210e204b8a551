/**
 * The dev-only `/sim/` endpoints over real HTTP: info, funding, fault settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER, OTHER_WALLET, getJson, lower, postJson, postText, startTestVenue, type TestVenue } from './relay-harness.ts';

let venue: TestVenue;
beforeAll(async () => {
  venue = await startTestVenue();
});
afterAll(() => venue.stop());

describe('GET /sim/info', () => {
  it('shows the chain, contracts, markets with every parameter as strings, and tokens', async () => {
    const info = await getJson(`${venue.url}/sim/info`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      chainId: 31337,
      blockMs: 20,
      contracts: venue.config.contracts,
      tokens: expect.arrayContaining([expect.objectContaining({ symbol: 'USDC', decimals: 6 })]),
    });
    const mon = info.body.markets.find((market: { symbol: string }) => market.symbol === 'MON_USDC');
    expect(mon).toMatchObject({
      address: venue.config.markets[0]!.address,
      pricePrecision: '10000000',
      sizePrecision: '100',
      tickSize: '10',
      minSize: '100',
      maxSize: '1000000000',
      makerFeePps: '0',
      takerFeePps: '2000',
      baseToken: { symbol: 'MON' },
      quoteToken: { symbol: 'USDC' },
    });
  });
});

describe('POST /sim/fund', () => {
  it('creates the account once and credits it, by token symbol or address in any case', async () => {
    const first = await postJson(`${venue.url}/sim/fund`, { owner: lower(OWNER), token: 'USDC', amount: '5000000' });
    expect(first.status).toBe(200);
    expect(first.body.accountId).toMatch(/^[1-9][0-9]*$/);
    const usdc = venue.config.tokens.find((token) => token.symbol === 'USDC')!.address;
    const again = await postJson(`${venue.url}/sim/fund`, { owner: OWNER.address, token: usdc.toUpperCase().replace('0X', '0x'), amount: '0' });
    expect(again.body).toEqual({ accountId: first.body.accountId });
    expect(venue.server.venue.available(BigInt(first.body.accountId), usdc)).toBe(5_000_000n);
    const other = await postJson(`${venue.url}/sim/fund`, { owner: lower(OTHER_WALLET), token: 'MON', amount: '1' });
    expect(other.body.accountId).not.toBe(first.body.accountId);
  });

  it('refuses bad bodies with 400 and a relay error code', async () => {
    const owner = lower(OWNER);
    const cases: [string, string, string?][] = [
      ['{"owner":', 'INVALID_JSON'],
      [JSON.stringify({ owner, token: 'USDC', amount: '1', extra: 1 }), 'UNKNOWN_FIELD', '$.extra'],
      [`{"owner":"${owner}","owner":"${owner}","token":"USDC","amount":"1"}`, 'DUPLICATE_FIELD', '$.owner'],
      [JSON.stringify({ owner, token: 'USDC', amount: '01' }), 'NON_CANONICAL', '$.amount'],
      [JSON.stringify({ owner, token: 'USDC', amount: 1 }), 'INVALID_REQUEST', '$.amount'],
      [JSON.stringify({ owner, token: 'USDC', amount: (1n << 256n).toString() }), 'INVALID_REQUEST', '$.amount'],
      [JSON.stringify({ owner, token: 'DOGE', amount: '1' }), 'INVALID_REQUEST', '$.token'],
      [JSON.stringify({ owner, token: `0x${'12'.repeat(20)}`, amount: '1' }), 'INVALID_REQUEST', '$.token'],
      [JSON.stringify({ owner: '0x12', token: 'USDC', amount: '1' }), 'INVALID_REQUEST', '$.owner'],
      [JSON.stringify({ token: 'USDC', amount: '1' }), 'INVALID_REQUEST', '$.owner'],
    ];
    for (const [body, code, path] of cases) {
      const answer = await postText(`${venue.url}/sim/fund`, body);
      expect(answer.status, body).toBe(400);
      expect(answer.body, body).toMatchObject({ code, retryable: false });
      if (path) expect(answer.body.message, body).toContain(path);
    }
  });
});

describe('/sim/faults', () => {
  it('reads, changes some keys, validates like the config and keeps the rest', async () => {
    const initial = await getJson(`${venue.url}/sim/faults`);
    expect(initial.body).toEqual(venue.config.faults);
    const changed = await postJson(`${venue.url}/sim/faults`, { outcomeDelayMs: 5, marketDataErrorRate: 0.5 });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...venue.config.faults, outcomeDelayMs: 5, marketDataErrorRate: 0.5 });
    expect(venue.server.faults.get()).toEqual(changed.body);

    for (const [body, code] of [
      [{ outcomeDelayMs: -1 }, 'INVALID_REQUEST'],
      [{ withholdOutcomesRate: 2 }, 'INVALID_REQUEST'],
      [{ dropWebSocketsEveryMs: 1.5 }, 'INVALID_REQUEST'],
      [{ bogus: 1 }, 'UNKNOWN_FIELD'],
      [[], 'INVALID_REQUEST'],
    ] as const) {
      expect((await postJson(`${venue.url}/sim/faults`, body)).body, JSON.stringify(body)).toMatchObject({ code });
    }
    expect((await postText(`${venue.url}/sim/faults`, '{"__proto__":{"outcomeDelayMs":1}}')).body).toMatchObject({ code: 'UNKNOWN_FIELD' });
    expect((await getJson(`${venue.url}/sim/faults`)).body).toEqual(changed.body);
    await postJson(`${venue.url}/sim/faults`, venue.config.faults);
    expect((await getJson(`${venue.url}/sim/faults`)).body).toEqual(venue.config.faults);
  });
});
