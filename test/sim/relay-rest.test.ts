/**
 * `POST /relay` and the auth routes over real HTTP: every refusal with its code, HTTP status and
 * JSON path, and the server keeps serving after each.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { relayRestResponseSchema } from '../../src/protocol/relay-response.ts';
import { personalSign } from '../../src/protocol/personal-sign.ts';
import {
  OTHER_WALLET,
  OWNER,
  WALLET,
  batchRestBody,
  bearer,
  getJson,
  lower,
  nextRequestId,
  onboard,
  postJson,
  postText,
  restingBuy,
  signIn,
  startTestVenue,
  waitForReceipt,
  type TestVenue,
} from './relay-harness.ts';

let venue: TestVenue;
let accountId: bigint;
let token: string;
let market: `0x${string}`;

beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20, maxBodyBytes: 64 * 1024 });
  ({ accountId, token } = await onboard(venue));
  market = venue.config.markets[0]!.address;
});
afterAll(() => venue.stop());
afterEach(async () => {
  // The server keeps serving after every refusal.
  expect((await getJson(`${venue.url}/sim/info`)).status).toBe(200);
});

function expectRefusal(answer: { status: number; body: any }, status: number, code: string, requestId: string | null = null) {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ requestId, status: 'REJECTED', code, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null });
  expect(typeof answer.body.message).toBe('string');
}

describe('POST /relay', () => {
  it('answers BROADCAST with HTTP 200 and echoes the requestId', async () => {
    const requestId = nextRequestId();
    const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId), bearer(token));
    expect(answer.status).toBe(200);
    const body = relayRestResponseSchema.parse(answer.body);
    expect(body).toMatchObject({ requestId, status: 'BROADCAST', transactionType: 'DYNAMIC_FEE', sponsorAddress: venue.config.relay.sponsorAddress });
    if (body.status === 'BROADCAST') expect((await waitForReceipt(venue.url, body.txHash)).status).toBe('success');
  });

  it('refuses any query, a token in the URL above all, with 400 INVALID_REQUEST, even with a valid header', async () => {
    const requestId = crypto.randomUUID();
    const body = await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId);
    for (const query of [`access_token=${token}`, 'token=x', 'anything=1']) {
      const answer = await postText(`${venue.url}/relay?${query}`, body, bearer(token));
      expectRefusal(answer, 400, 'INVALID_REQUEST', requestId);
      expect(answer.body.message).toMatch(/never in the URL/);
    }
  });

  it('refuses a missing, malformed, foreign or expired JWT with 401 AUTHENTICATION_FAILED', async () => {
    const requestId = nextRequestId();
    const body = await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId);
    expectRefusal(await postText(`${venue.url}/relay`, body), 401, 'AUTHENTICATION_FAILED', requestId);
    expectRefusal(await postText(`${venue.url}/relay`, body, { authorization: 'Bearer nope' }), 401, 'AUTHENTICATION_FAILED', requestId);
    expectRefusal(await postText(`${venue.url}/relay`, body, { authorization: token }), 401, 'AUTHENTICATION_FAILED', requestId);
    const other = await startTestVenue();
    try {
      const foreign = await signIn(other.url, WALLET);
      expectRefusal(await postText(`${venue.url}/relay`, body, bearer(foreign)), 401, 'AUTHENTICATION_FAILED', requestId);
    } finally {
      await other.stop();
    }
    expectRefusal(await postText(`${venue.url}/relay`, '{', { authorization: 'Bearer x' }), 401, 'AUTHENTICATION_FAILED', null);
  });

  it('refuses an expired JWT (virtual clock)', async () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1, 12, 0, 0));
    const short = await startTestVenue({ clock, jwtLifetimeSec: 1 });
    try {
      const expiring = await signIn(short.url, WALLET);
      // Still valid 1 ms before it expires: the relay reads the body and refuses that instead.
      clock.advanceBy(999);
      expect(await postText(`${short.url}/relay`, '{}', bearer(expiring))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      clock.advanceBy(1);
      const answer = await postText(`${short.url}/relay`, '{}', bearer(expiring));
      expectRefusal(answer, 401, 'AUTHENTICATION_FAILED');
      expect(answer.body.message).toBe('JWT expired');
    } finally {
      await short.stop();
    }
  });

  it('refuses bad JSON, unknown and duplicate fields with the JSON path', async () => {
    expectRefusal(await postText(`${venue.url}/relay`, '{"requestId":', bearer(token)), 400, 'INVALID_JSON');
    const requestId = nextRequestId();
    const valid = JSON.parse(await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId));

    const unknown = structuredClone(valid);
    unknown.payload.orders[0].colour = 'red';
    const answer = await postText(`${venue.url}/relay`, JSON.stringify(unknown), bearer(token));
    expectRefusal(answer, 400, 'UNKNOWN_FIELD', requestId);
    expect(answer.body.message).toContain('$.payload.orders[0].colour');

    const text = JSON.stringify(valid).replace('"tif":"GTC"', '"tif":"GTC","tif":"IOC"');
    const duplicate = await postText(`${venue.url}/relay`, text, bearer(token));
    expectRefusal(duplicate, 400, 'DUPLICATE_FIELD', requestId);
    expect(duplicate.body.message).toContain('$.payload.orders[0].tif');

    const nonCanonical = structuredClone(valid);
    nonCanonical.payload.orders[0].price = '0300000';
    expectRefusal(await postText(`${venue.url}/relay`, JSON.stringify(nonCanonical), bearer(token)), 400, 'NON_CANONICAL', requestId);

    const trigger = { ...valid, method: 'wallet.create_batch_trigger' };
    expectRefusal(await postText(`${venue.url}/relay`, JSON.stringify(trigger), bearer(token)), 400, 'UNSUPPORTED_METHOD', requestId);
  });

  it('refuses an envelope wallet other than the JWT wallet with 403 WALLET_MISMATCH', async () => {
    const otherToken = await signIn(venue.url, OTHER_WALLET);
    const requestId = nextRequestId();
    const body = await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId);
    expectRefusal(await postText(`${venue.url}/relay`, body, bearer(otherToken)), 403, 'WALLET_MISMATCH', requestId);
  });

  it("answers the venue's refusals with their code's status", async () => {
    const requestId = nextRequestId();
    const body = JSON.parse(await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId));
    body.payload.header.nonce = '1';
    // The signature no longer matches the header: 422 INVALID_SIGNATURE.
    expectRefusal(await postText(`${venue.url}/relay`, JSON.stringify(body), bearer(token)), 422, 'INVALID_SIGNATURE', requestId);
  });

  it('refuses a body over the limit with 413 PAYLOAD_TOO_LARGE and keeps serving', async () => {
    const answer = await postText(`${venue.url}/relay`, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), bearer(token));
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ requestId: null, status: 'REJECTED', code: 'PAYLOAD_TOO_LARGE', retryable: false });
  });

  it('answers UNKNOWN BROADCAST_RESULT_UNKNOWN (503) with the candidate hash under the fault, and the transaction is sent', async () => {
    expect((await postJson(`${venue.url}/sim/faults`, { unknownResponseRate: 1 })).status).toBe(200);
    try {
      const requestId = nextRequestId();
      const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }, requestId), bearer(token));
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ requestId, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false });
      expect(answer.body.candidateTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(answer.body.sponsorNonce).toMatch(/^[0-9]+$/);
      expect((await waitForReceipt(venue.url, answer.body.candidateTxHash)).status).toBe('success');
    } finally {
      await postJson(`${venue.url}/sim/faults`, { unknownResponseRate: 0 });
    }
  });
});

describe('relay auth over HTTP', () => {
  it('refuses a replayed challenge and a wrong signature with 401, and keeps a wrongly signed challenge usable', async () => {
    const challenge = (await postJson(`${venue.url}/auth/challenge`, { wallet: lower(WALLET) })).body;
    const wrong = await personalSign(OWNER, { message: challenge.message });
    const refused = await postJson(`${venue.url}/auth/token`, { challengeId: challenge.challengeId, signature: wrong });
    expect(refused).toMatchObject({ status: 401, body: { code: 'AUTHENTICATION_FAILED', retryable: false } });
    const signature = await personalSign(WALLET, { message: challenge.message });
    const first = await postJson(`${venue.url}/auth/token`, { challengeId: challenge.challengeId, signature });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ tokenType: 'Bearer', wallet: lower(WALLET) });
    const replay = await postJson(`${venue.url}/auth/token`, { challengeId: challenge.challengeId, signature });
    expect(replay).toMatchObject({ status: 401, body: { code: 'AUTHENTICATION_FAILED', message: 'challenge already used' } });
  });

  it('refuses malformed auth bodies with 400 and the relay input codes', async () => {
    expect((await postText(`${venue.url}/auth/challenge`, '{"wallet":')).body).toMatchObject({ code: 'INVALID_JSON' });
    const duplicate = await postText(`${venue.url}/auth/challenge`, `{"wallet":"${lower(WALLET)}","wallet":"${lower(WALLET)}"}`);
    expect(duplicate).toMatchObject({ status: 400, body: { code: 'DUPLICATE_FIELD', retryable: false } });
    expect(duplicate.body.message).toContain('$.wallet');
    expect((await postJson(`${venue.url}/auth/challenge`, { wallet: lower(WALLET), x: 1 })).body).toMatchObject({ code: 'UNKNOWN_FIELD' });
    const big = await postText(`${venue.url}/auth/token`, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }));
    expect(big).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE', retryable: false } });
  });
});
