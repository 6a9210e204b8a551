/**
 * The relay's checks, one test per refusal, each built so that it would be accepted if that check
 * were missing; and what an accepted call gets (sponsor, nonce, hash, transaction type).
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { Permission } from '../../src/protocol/constants.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { sponsoredTxHash } from '../../src/venue/relay-executor.ts';
import type { SubmitResult } from '../../src/venue/sim-venue.ts';
import {
  EMPTY_SLOT,
  KEYS,
  MON,
  MON_USDC,
  USDC,
  authorizeCall,
  batchCall,
  broadcast,
  cancelTriggerCall,
  createHarness,
  onboard,
  order,
  replaceCall,
  submit,
  testConfig,
  type Harness,
  type Trader,
} from './sim-venue-harness.ts';

const code = (result: SubmitResult) => (result.status === 'BROADCAST' ? 'BROADCAST' : result.code);

async function ready(): Promise<{ h: Harness; alice: Trader }> {
  const h = createHarness();
  const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
  await onboard(h, alice);
  return { h, alice };
}

const buy = [order('BUY', 150n, 10n)];

describe('relay: trading-wallet intents', () => {
  it('accepts a valid batch: sponsor address, incrementing sponsor nonce, derived hash, DYNAMIC_FEE', async () => {
    const { h, alice } = await ready();
    const result = await submit(h, alice, await batchCall(h, alice, { orders: buy }));
    const sponsor = h.config.relay.sponsorAddress;
    expect(result).toEqual({ status: 'BROADCAST', txHash: sponsoredTxHash(31337, sponsor, 1n), sponsorAddress: sponsor, sponsorNonce: 1n, transactionType: 'DYNAMIC_FEE' });
  });

  it('refuses a market the venue does not have: UNKNOWN_MARKET', async () => {
    const { h, alice } = await ready();
    const call = await batchCall(h, alice, { orders: buy }, { market: '0x1111111111111111111111111111111111111111' });
    expect(code(await submit(h, alice, call))).toBe('UNKNOWN_MARKET');
  });

  it('refuses an intent signed by another key: INVALID_SIGNATURE', async () => {
    const { h, alice } = await ready();
    const call = await batchCall(h, alice, { orders: buy }, { signer: privateKeyToAccount(KEYS.mallory) });
    const result = await submit(h, alice, call);
    expect(code(result)).toBe('INVALID_SIGNATURE');
    expect(result.status === 'REJECTED' && result).toMatchObject({ retryable: false, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null });
  });

  it('verifies under the configured trading-wallet domain version', async () => {
    const h = createHarness(testConfig({ relay: { tradingWalletDomainVersion: '2' } }));
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    await onboard(h, alice);
    // The harness signs under version "1".
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy })))).toBe('INVALID_SIGNATURE');
  });

  it('refuses a high-s signature: INVALID_SIGNATURE', async () => {
    const { h, alice } = await ready();
    const call = await batchCall(h, alice, { orders: buy });
    if (call.method !== 'wallet.execute_batch') throw new Error('unreachable');
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const sig = call.payload.signature;
    const s = BigInt(`0x${sig.slice(66, 130)}`);
    const flipped = `${sig.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${sig.slice(130) === '1b' ? '1c' : '1b'}` as Hex;
    const result = await submit(h, alice, { ...call, payload: { ...call.payload, signature: flipped } });
    expect(code(result)).toBe('INVALID_SIGNATURE');
    expect(result.status !== 'BROADCAST' && result.message).toMatch(/high-s/);
  });

  it('refuses a wallet without an EIP-7702 delegation: WALLET_NOT_DELEGATED', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    alice.accountId = h.venue.fund(alice.ownerAddress, USDC, 10n ** 12n);
    const auth = await authorizeCall(h, alice, { with7702: false });
    expect(await submit(h, alice, auth.call, null)).toMatchObject({ status: 'BROADCAST', transactionType: 'DYNAMIC_FEE' });
    h.blocks(1);
    expect(h.venue.resolveAccount(alice.walletAddress)).toBe(alice.accountId); // the grant is there
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy })))).toBe('WALLET_NOT_DELEGATED');
  });

  it('refuses a wallet with no grant on the account: SIGNER_NOT_AUTHORIZED', async () => {
    const { h, alice } = await ready();
    const bob = h.trader(KEYS.bob, KEYS.bobWallet);
    await onboard(h, bob);
    // Bob's wallet is delegated and granted on Bob's account, not on Alice's.
    const call = await batchCall(h, bob, { orders: buy }, { accountId: alice.accountId });
    expect(code(await submit(h, bob, call))).toBe('SIGNER_NOT_AUTHORIZED');
  });

  it('refuses a grant without TRADE, and an expired grant: SIGNER_NOT_AUTHORIZED', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    alice.accountId = h.venue.fund(alice.ownerAddress, USDC, 10n ** 12n);
    const auth = await authorizeCall(h, alice, { permissions: BigInt(Permission.WITHDRAW) });
    await submit(h, alice, auth.call, auth.authorization7702);
    h.blocks(1);
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy })))).toBe('SIGNER_NOT_AUTHORIZED');

    const expiry = BigInt(Math.floor(h.clock.now() / 1000) + 2);
    const again = await authorizeCall(h, alice, { nonce: 2n, with7702: false, expiry });
    await submit(h, alice, again.call, null);
    h.blocks(1);
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy })))).toBe('BROADCAST');
    h.clock.advanceBy(3000);
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy })))).toBe('SIGNER_NOT_AUTHORIZED');
  });

  it('refuses an intent of another authNonce epoch: AUTH_NONCE_MISMATCH', async () => {
    const { h, alice } = await ready();
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { authNonce: 1n })))).toBe('AUTH_NONCE_MISMATCH');
  });

  it('refuses a replay and a lower nonce: NONCE_NOT_INCREASING; the nonce is consumed only when accepted', async () => {
    const { h, alice } = await ready();
    const nonce = BigInt(h.clock.now()) + 10n;
    const expired = await batchCall(h, alice, { orders: buy }, { nonce, deadline: 1n });
    expect(code(await submit(h, alice, expired))).toBe('DEADLINE_EXPIRED');
    const call = await batchCall(h, alice, { orders: buy }, { nonce });
    expect(code(await submit(h, alice, call))).toBe('BROADCAST');
    expect(code(await submit(h, alice, call))).toBe('NONCE_NOT_INCREASING');
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { nonce: nonce - 1n })))).toBe('NONCE_NOT_INCREASING');
  });

  it('checks a nonce on a clock between whole ms (a strategy timer at 30000 / 7 ms) without failing', async () => {
    const { h, alice } = await ready();
    h.clock.advanceBy(0.7144);
    const now = BigInt(Math.floor(h.clock.now()));
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { nonce: now + 1n })))).toBe('BROADCAST');
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { nonce: now + 60_001n })))).toBe('NONCE_TOO_FAR_AHEAD');
  });

  it('refuses a nonce further ahead than the skew: NONCE_TOO_FAR_AHEAD (60 s by default)', async () => {
    const { h, alice } = await ready();
    const now = BigInt(h.clock.now());
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { nonce: now + 60_001n })))).toBe('NONCE_TOO_FAR_AHEAD');
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { nonce: now + 60_000n })))).toBe('BROADCAST');
  });

  it('refuses a passed deadline: DEADLINE_EXPIRED', async () => {
    const { h, alice } = await ready();
    const past = BigInt(Math.floor(h.clock.now() / 1000) - 1);
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { deadline: past })))).toBe('DEADLINE_EXPIRED');
    expect(code(await submit(h, alice, await batchCall(h, alice, { orders: buy }, { deadline: past + 1n })))).toBe('BROADCAST');
  });

  it('checks submissions in call order, each against what its predecessors left', async () => {
    const { h, alice } = await ready();
    const now = BigInt(h.clock.now());
    const [second, first] = [await batchCall(h, alice, { orders: buy }, { nonce: now + 2n }), await batchCall(h, alice, { orders: buy }, { nonce: now + 1n })];
    const results = await Promise.all([submit(h, alice, second), submit(h, alice, first)]);
    expect(results.map(code)).toEqual(['BROADCAST', 'NONCE_NOT_INCREASING']);
  });

  it('places and cancels through packed replacement ops', async () => {
    const { h, alice } = await ready();
    const place = await replaceCall(h, alice, {
      ops: [{ slotIdx: 5, kind: 'place', side: 'SELL', postOnly: true, price: 170n, size: 300n, minSizeAfterBlock: 0n }],
      expectedOrderIds: [EMPTY_SLOT],
    });
    const placed = await broadcast(h, alice, place);
    h.blocks(1);
    expect(h.outcomes.at(-1)).toMatchObject({ txHash: placed, status: 'CONFIRMED' });
    expect(h.venue.openOrders(alice.accountId, MON_USDC).map((o) => [o.id, o.slot])).toEqual([[1n, 5]]);
    const cancel = await broadcast(h, alice, await replaceCall(h, alice, { ops: [{ slotIdx: 5, kind: 'cancel' }], expectedOrderIds: [1n] }));
    h.blocks(1);
    expect(h.outcomes.at(-1)).toMatchObject({ txHash: cancel, status: 'CONFIRMED' });
    expect(h.venue.openOrders(alice.accountId, MON_USDC)).toEqual([]);
    expect(h.venue.balance(alice.accountId, MON).locked).toBe(0n);
  });

  it('refuses packed ops that do not decode: INVALID_REQUEST', async () => {
    const { h, alice } = await ready();
    // A reserved bit set in an otherwise valid cancel of slot 3.
    const packedOps = `0x01${'00'.repeat(30)}03` as Hex;
    const result = await submit(h, alice, await replaceCall(h, alice, { packedOps, expectedOrderIds: [EMPTY_SLOT] }));
    expect(code(result)).toBe('INVALID_REQUEST');
    expect(result.status !== 'BROADCAST' && result.message).toMatch(/reserved bits/);
  });
});

describe('relay: cancel trigger', () => {
  it('checks the signature first, then answers UNKNOWN_TRIGGER: no trigger is ever active', async () => {
    const { h, alice } = await ready();
    expect(code(await submit(h, alice, await cancelTriggerCall(h, alice, { signer: privateKeyToAccount(KEYS.mallory) })))).toBe('INVALID_SIGNATURE');
    expect(code(await submit(h, alice, await cancelTriggerCall(h, alice, { authNonce: 4n })))).toBe('AUTH_NONCE_MISMATCH');
    expect(code(await submit(h, alice, await cancelTriggerCall(h, alice)))).toBe('UNKNOWN_TRIGGER');
  });
});

describe('relay: authorize account signer', () => {
  it('refuses a grant not signed by its authorizer: INVALID_SIGNATURE', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    const { call, authorization7702 } = await authorizeCall(h, alice, { signer: privateKeyToAccount(KEYS.mallory) });
    expect(code(await submit(h, alice, call, authorization7702))).toBe('INVALID_SIGNATURE');
  });

  it('refuses an authorizer that is neither the owner nor an ADMIN signer: SIGNER_NOT_AUTHORIZED', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    const mallory = privateKeyToAccount(KEYS.mallory);
    h.venue.fund(alice.ownerAddress, USDC, 1n);
    const { call, authorization7702 } = await authorizeCall(h, alice, { signer: mallory, authorizer: mallory.address.toLowerCase() as Hex });
    expect(code(await submit(h, alice, call, authorization7702))).toBe('SIGNER_NOT_AUTHORIZED');
  });

  it('lets a signer with ADMIN authorize another wallet', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    alice.accountId = h.venue.fund(alice.ownerAddress, USDC, 1n);
    const admin = await authorizeCall(h, alice, { permissions: BigInt(Permission.ADMIN | Permission.TRADE) });
    await submit(h, alice, admin.call, admin.authorization7702);
    h.blocks(1);
    // Alice's wallet (ADMIN) grants Bob's wallet TRADE on Alice's account.
    const other = { ...h.trader(KEYS.alice, KEYS.bobWallet), accountId: alice.accountId };
    const grant = await authorizeCall(h, other, { signer: alice.wallet, authorizer: alice.walletAddress, nonce: 9n });
    expect(code(await submit(h, other, grant.call, grant.authorization7702))).toBe('BROADCAST');
    h.blocks(1);
    expect(h.venue.resolveAccount(other.walletAddress)).toBe(alice.accountId);
    expect(code(await submit(h, other, await batchCall(h, other, { orders: [order('BUY', 1n, 1n)] })))).toBe('BROADCAST');
  });

  it('refuses a used authorization nonce (NONCE_ALREADY_USED) and a passed deadline (DEADLINE_EXPIRED)', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    const first = await authorizeCall(h, alice, { with7702: false });
    expect(code(await submit(h, alice, first.call, null))).toBe('BROADCAST');
    expect(code(await submit(h, alice, first.call, null))).toBe('NONCE_ALREADY_USED');
    const late = await authorizeCall(h, alice, { with7702: false, nonce: 2n, deadline: BigInt(Math.floor(h.clock.now() / 1000) - 1) });
    expect(code(await submit(h, alice, late.call, null))).toBe('DEADLINE_EXPIRED');
    // An authorization for an owner without an account opens one when it executes.
    h.blocks(1);
    expect(h.venue.accountOf(alice.ownerAddress)).toBe(1n);
  });

  it('checks the EIP-7702 authorization: authority, delegate, nonce and chain', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    const mallory = privateKeyToAccount(KEYS.mallory);
    const cases: [Parameters<typeof authorizeCall>[2], string][] = [
      [{ authority: mallory }, 'INVALID_SIGNATURE'],
      [{ delegate: '0x2222222222222222222222222222222222222222' }, 'INVALID_REQUEST'],
      [{ nonce7702: 1n }, 'INVALID_REQUEST'],
      [{ chainId7702: 10143n }, 'INVALID_REQUEST'],
    ];
    let nonce = 10n;
    for (const [options, expected] of cases) {
      const { call, authorization7702 } = await authorizeCall(h, alice, { ...options, nonce: nonce++ });
      expect(code(await submit(h, alice, call, authorization7702)), JSON.stringify(options, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toBe(expected);
    }
    // Chain id 0 (any chain) is accepted; the 7702 nonce is then consumed.
    const ok = await authorizeCall(h, alice, { chainId7702: 0n, nonce: nonce++ });
    expect(await submit(h, alice, ok.call, ok.authorization7702)).toMatchObject({ status: 'BROADCAST', transactionType: 'SET_CODE' });
    const reused = await authorizeCall(h, alice, { nonce: nonce++ });
    expect(code(await submit(h, alice, reused.call, reused.authorization7702))).toBe('INVALID_REQUEST');
    const next = await authorizeCall(h, alice, { nonce: nonce++, nonce7702: 1n });
    expect(code(await submit(h, alice, next.call, next.authorization7702))).toBe('BROADCAST');
  });
});
