import fc from 'fast-check';
import { hashTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { accountCoreDomain, tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import {
  authorizeAccountSignerDigest,
  authorizeAccountSignerTypedData,
  batchIntentDigest,
  batchIntentTypedData,
  cancelTriggerIntentDigest,
  cancelTriggerIntentTypedData,
  replaceBySlotIntentDigest,
  replaceBySlotIntentTypedData,
  signBatchIntent,
} from '../../src/protocol/intent-signing.ts';
import { address, batch, bytes32, header } from '../../src/testing/arbitraries.ts';
import { uintMax } from '../../src/protocol/encoding.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const domainArbitrary = fc.record({
  chainId: fc.constantFrom(143, 10143, 31337, 1),
  wallet: address,
  version: fc.constantFrom('1', '2'),
}).map((p) => tradingWalletDomain(p));

describe('the fast EIP-712 hasher', () => {
  it('gives the digest of viem hashTypedData for every batch intent', () => {
    fc.assert(
      fc.property(domainArbitrary, batch, (domain, intent) => {
        expect(batchIntentDigest({ domain, intent })).toBe(hashTypedData(batchIntentTypedData({ domain, intent })));
      }),
      fuzzSettings({ numRuns: 200 }),
    );
  });

  it('gives the digest of viem hashTypedData for replace, cancel-trigger and authorize intents', () => {
    const packedOps = fc.integer({ min: 1, max: 4 }).chain((n) => fc.array(bytes32, { minLength: n, maxLength: n }));
    fc.assert(
      fc.property(domainArbitrary, header, packedOps, (domain, h, ops) => {
        const intent = { header: h, packedOps: `0x${ops.map((op) => op.slice(2)).join('')}` as const, expectedOrderIds: ops.map((_, i) => BigInt(i)) };
        expect(replaceBySlotIntentDigest({ domain, intent })).toBe(hashTypedData(replaceBySlotIntentTypedData({ domain, intent })));
        const cancel = { accountId: h.accountId, authNonce: h.authNonce, nonce: h.nonce, deadline: h.deadline, triggerId: h.clientOrderId };
        expect(cancelTriggerIntentDigest({ domain, intent: cancel })).toBe(hashTypedData(cancelTriggerIntentTypedData({ domain, intent: cancel })));
      }),
      fuzzSettings({ numRuns: 100 }),
    );
    fc.assert(
      fc.property(address, address, address, fc.bigInt({ min: 0n, max: uintMax(256) }), (core, owner, signer, nonce) => {
        const domain = accountCoreDomain({ chainId: 31337, accountCore: core });
        const intent = { account: owner, authorizer: owner, signer, permissions: 1n, expiry: 0n, nonce, deadline: nonce };
        expect(authorizeAccountSignerDigest({ domain, intent })).toBe(hashTypedData(authorizeAccountSignerTypedData({ domain, intent })));
      }),
      fuzzSettings({ numRuns: 100 }),
    );
  });

  it('signs the same bytes on the fast path as through signTypedData', async () => {
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const remoteLike = { address: account.address, signTypedData: account.signTypedData };
    await fc.assert(
      fc.asyncProperty(domainArbitrary, batch, async (domain, intent) => {
        expect(await signBatchIntent(account, { domain, intent })).toBe(await signBatchIntent(remoteLike, { domain, intent }));
      }),
      fuzzSettings({ numRuns: 20 }),
    );
  });
});
