/**
 * The dev-only `/sim/` endpoints over real HTTP: info, funding, fault settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER, OTHER_WALLET, bearer, getJson, lower, postJson, postText, signIn, startTestVenue, type TestVenue } from './relay-harness.ts';

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

describe('/sim/faults/actions and /sim/faults/script', () => {
  it('applies an action at once and answers it with its defaults and the one-shot faults left', async () => {
    const applied = await postJson(`${venue.url}/sim/faults/actions`, { action: 'answer-rejected', count: 2, code: 'RATE_LIMITED' });
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({
      action: { action: 'answer-rejected', count: 2, code: 'RATE_LIMITED', retryAfterMs: 1000 },
      pending: { outcomes: 0, relayRejections: 2, unknownAnswers: 0, marketData: 0, orderEvents: 0 },
    });
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body).toEqual({ pending: applied.body.pending });
    // Used up by the next two submissions, which never reach the venue.
    expect(venue.server.faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 1000 });
    expect(venue.server.faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 1000 });
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body.pending.relayRejections).toBe(0);
  });

  it('expires every relay JWT issued so far: the next call gets 401 AUTHENTICATION_FAILED "JWT expired", a new sign-in works', async () => {
    const token = await signIn(venue.url, OTHER_WALLET);
    const probe = () => postText(`${venue.url}/relay`, '{', bearer(token));
    // A good token gets past the JWT check (and fails on the body).
    expect((await probe()).body).toMatchObject({ code: 'INVALID_JSON' });
    expect((await postJson(`${venue.url}/sim/faults/actions`, { action: 'expire-tokens' })).status).toBe(200);
    const refused = await probe();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 'REJECTED', code: 'AUTHENTICATION_FAILED', message: 'JWT expired', retryable: false });
    const fresh = await signIn(venue.url, OTHER_WALLET);
    expect((await postText(`${venue.url}/relay`, '{', bearer(fresh))).body).toMatchObject({ code: 'INVALID_JSON' });
  });

  it('refuses bad actions and scripts with 400 and a relay error code, changing nothing', async () => {
    for (const [path, body, code] of [
      ['actions', { action: 'explode' }, 'INVALID_REQUEST'],
      ['actions', { action: 'withhold-outcomes', count: 0 }, 'INVALID_REQUEST'],
      ['actions', { action: 'drop-connections', extra: 1 }, 'UNKNOWN_FIELD'],
      ['actions', { action: 'set', settings: { outcomeDelayMs: -1 } }, 'INVALID_REQUEST'],
      ['actions', [], 'INVALID_REQUEST'],
      ['script', { at: 1 }, 'INVALID_REQUEST'],
      ['script', [{ at: 'later', fault: { action: 'drop-connections' } }], 'INVALID_REQUEST'],
      ['script', [{ at: 5, fault: { action: 'drop-connections' }, why: 'x' }], 'UNKNOWN_FIELD'],
    ] as const) {
      const answer = await postJson(`${venue.url}/sim/faults/${path}`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ code, retryable: false });
    }
    expect((await postText(`${venue.url}/sim/faults/actions`, '{"action":"drop-connections","action":"expire-tokens"}')).body).toMatchObject({ code: 'DUPLICATE_FIELD' });
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body.pending).toEqual({ outcomes: 0, relayRejections: 0, unknownAnswers: 0, marketData: 0, orderEvents: 0 });
  });

  it('takes duplicate-outcomes, reorder-outcomes and delay-order-events, with their defaults, by action and by script', async () => {
    const none = { outcomes: 0, relayRejections: 0, unknownAnswers: 0, marketData: 0, orderEvents: 0 };
    const duplicate = await postJson(`${venue.url}/sim/faults/actions`, { action: 'duplicate-outcomes' });
    expect(duplicate.body).toEqual({ action: { action: 'duplicate-outcomes', count: 1 }, pending: { ...none, outcomes: 1 } });
    const reorder = await postJson(`${venue.url}/sim/faults/actions`, { action: 'reorder-outcomes', count: 2 });
    expect(reorder.body).toEqual({ action: { action: 'reorder-outcomes', count: 2 }, pending: { ...none, outcomes: 3 } });
    const delayed = await postJson(`${venue.url}/sim/faults/actions`, { action: 'delay-order-events', count: 4, delayMs: 2500 });
    expect(delayed.body).toEqual({ action: { action: 'delay-order-events', count: 4, delayMs: 2500 }, pending: { ...none, outcomes: 3, orderEvents: 4 } });
    for (const [body, code] of [
      [{ action: 'delay-order-events', count: 1 }, 'INVALID_REQUEST'],
      [{ action: 'delay-order-events', delayMs: 600_001 }, 'INVALID_REQUEST'],
      [{ action: 'reorder-outcomes', count: 0 }, 'INVALID_REQUEST'],
      [{ action: 'duplicate-outcomes', delayMs: 1 }, 'UNKNOWN_FIELD'],
    ] as const) {
      const answer = await postJson(`${venue.url}/sim/faults/actions`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ code, retryable: false });
    }
    const script = await postJson(`${venue.url}/sim/faults/script`, [
      { at: 0, fault: { action: 'duplicate-outcomes', count: 2 } },
      { at: 0, fault: { action: 'delay-order-events', count: 1, delayMs: 10 } },
    ]);
    expect(script.body).toEqual({ scheduled: 2, startMs: expect.any(Number) });
    await new Promise((resolve) => venue.clock.scheduler.schedule(() => resolve(undefined), 0));
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body.pending).toEqual({ ...none, outcomes: 5, orderEvents: 5 });
    // Used up in the order applied: duplicate, reorder, reorder, then the script's duplicates.
    const faults = venue.server.faults;
    expect([1, 2, 3, 4, 5].map(() => faults.outcome())).toEqual([
      { withhold: false, delayMs: 0, duplicate: true },
      { withhold: false, delayMs: 0, reorder: true },
      { withhold: false, delayMs: 0, reorder: true },
      { withhold: false, delayMs: 0, duplicate: true },
      { withhold: false, delayMs: 0, duplicate: true },
    ]);
    const later = venue.clock.now() + 1000;
    expect([1, 2, 3, 4, 5].map(() => faults.orderEventDelay(later))).toEqual([2500, 2500, 2500, 2500, 10]);
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body.pending).toEqual(none);
  });

  it('schedules a script on the venue clock, counted from now', async () => {
    const answer = await postJson(`${venue.url}/sim/faults/script`, [{ at: 0, fault: { action: 'answer-unknown', count: 3 } }]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ scheduled: 1, startMs: expect.any(Number) });
    // The entry runs on the scheduler's next turn (the venue's clock is the live one here).
    await new Promise((resolve) => venue.clock.scheduler.schedule(() => resolve(undefined), 0));
    expect((await getJson(`${venue.url}/sim/faults/actions`)).body.pending.unknownAnswers).toBe(3);
    for (let i = 0; i < 3; i++) venue.server.faults.relayUnknown();
  });
});
