/**
 * Published signing vectors reproduced through our functions: personal_sign and EIP-712 vectors
 * from the EIP-712 spec, viem and eth-sig-util (test/fixtures/signing/vectors.json), and the
 * venue SDK's pinned trading-wallet values (venue-vectors.json).
 */
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import { hashAuthorization7702 } from '../../src/protocol/eip7702.ts';
import { hashCancelSlotIdxs, hashExpectedOrderIds, hashOrders, hashPackedOps } from '../../src/protocol/intent-hashes.ts';
import {
  batchIntentTypedData,
  cancelTriggerIntentTypedData,
  recoverReplaceBySlotIntentSigner,
  recoverTypedDataSigner,
  replaceBySlotIntentTypedData,
  signTypedDataWith,
  typedDataDigest,
  type AnyTypedData,
} from '../../src/protocol/intent-signing.ts';
import type { BatchIntent, CancelTriggerIntent, OrderIntent, ReplaceBySlotIntent } from '../../src/protocol/intent-types.ts';
import { personalSign, personalSignHash, recoverPersonalSignSigner, type PersonalSignMessage } from '../../src/protocol/personal-sign.ts';

const fixtures = new URL('../fixtures/signing/', import.meta.url);

interface PersonalSignVector {
  source: string;
  privateKey: Hex;
  message?: string;
  messageHex?: Hex;
  expected: Hex;
  address: string;
  expectedAddress?: string;
  eip191Hash: Hex;
}

interface Eip712Vector {
  name: string;
  source: string;
  privateKey: Hex;
  domainTypes?: { name: string; type: string }[];
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
  expected: { signature: Hex; digest?: Hex; address?: string };
  address: string;
  computed: { digest?: Hex };
}

const vectors = JSON.parse(readFileSync(new URL('vectors.json', fixtures), 'utf8')) as {
  personal_sign: PersonalSignVector[];
  eip712: Eip712Vector[];
};

function messageOf(vector: PersonalSignVector): PersonalSignMessage {
  if (vector.message !== undefined) return vector.message;
  if (vector.messageHex !== undefined) return { raw: vector.messageHex };
  throw new Error(`vector from ${vector.source} has neither message nor messageHex`);
}

function typedDataOf(vector: Eip712Vector): AnyTypedData {
  // An explicit EIP712Domain (e.g. with the httpOrigin field) overrides the one derived from the domain.
  const types = vector.domainTypes ? { EIP712Domain: vector.domainTypes, ...vector.types } : vector.types;
  return { domain: vector.domain, types, primaryType: vector.primaryType, message: vector.message } as AnyTypedData;
}

describe('published personal_sign vectors', () => {
  it('holds every vector of the fixture, including the raw-bytes ones', () => {
    expect(vectors.personal_sign).toHaveLength(6);
    expect(vectors.personal_sign.filter((vector) => vector.messageHex !== undefined)).toHaveLength(3);
  });

  it.each(vectors.personal_sign.map((vector, index) => [index, vector.source, vector] as const))(
    'vector %i (%s) signs, hashes and recovers as published',
    async (_index, _source, vector) => {
      const message = messageOf(vector);
      const account = privateKeyToAccount(vector.privateKey);
      expect(account.address.toLowerCase()).toBe(vector.address.toLowerCase());
      expect(personalSignHash(message)).toBe(vector.eip191Hash);
      expect(await personalSign(account, { message })).toBe(vector.expected.toLowerCase());
      const recovered = await recoverPersonalSignSigner({ message, signature: vector.expected });
      expect(recovered).toBe(vector.address.toLowerCase());
      if (vector.expectedAddress !== undefined) expect(recovered).toBe(vector.expectedAddress.toLowerCase());
    },
  );
});

describe('published EIP-712 vectors', () => {
  it('holds every vector of the fixture', () => {
    expect(vectors.eip712).toHaveLength(6);
  });

  it.each(vectors.eip712.map((vector) => [vector.name, vector] as const))('%s: signs and recovers as published', async (_name, vector) => {
    const typedData = typedDataOf(vector);
    const account = privateKeyToAccount(vector.privateKey);
    const digest = vector.expected.digest ?? vector.computed.digest;
    if (digest !== undefined) expect(typedDataDigest(typedData)).toBe(digest);
    expect(await signTypedDataWith(account, typedData)).toBe(vector.expected.signature.toLowerCase());
    const recovered = await recoverTypedDataSigner({ typedData, signature: vector.expected.signature });
    expect(recovered).toBe(vector.address.toLowerCase());
    if (vector.expected.address !== undefined) expect(recovered).toBe(vector.expected.address.toLowerCase());
  });

  it('recovers another address when one message field changes', async () => {
    const vector = vectors.eip712[0]!;
    const typedData = typedDataOf(vector);
    const tampered = { ...typedData, message: { ...typedData.message, contents: 'Hello, Bob?' } } as AnyTypedData;
    const recovered = await recoverTypedDataSigner({ typedData: tampered, signature: vector.expected.signature });
    expect(recovered).not.toBe(vector.address.toLowerCase());
  });
});

// ---- the venue SDK's pinned values ---------------------------------------------------------------

interface VenueVectors {
  chainId: number;
  wallet: Address;
  header: Record<string, string>;
  orders: Record<string, string>[];
  cancelSlotIdxs: number[];
  expectedOrderIds: string[];
  packedOps: Hex;
  cancelTrigger: Record<string, string>;
  hashes: Record<string, Hex>;
  digests: Record<'1' | '2', { batch: Hex; replaceBySlot: Hex; cancelTrigger: Hex }>;
  replaceBySlotSignatureV1: Hex;
  authorization7702: { chainId: string; delegate: Address; nonce: string; digest: Hex };
}

const venue = JSON.parse(readFileSync(new URL('venue-vectors.json', fixtures), 'utf8')) as VenueVectors;
const header = {
  accountId: BigInt(venue.header.accountId!),
  market: venue.header.market as Address,
  authNonce: BigInt(venue.header.authNonce!),
  nonce: BigInt(venue.header.nonce!),
  deadline: BigInt(venue.header.deadline!),
  clientOrderId: venue.header.clientOrderId as Hex,
  builder: venue.header.builder as Address,
  builderFeePps: BigInt(venue.header.builderFeePps!),
};
const orders = venue.orders.map(
  (order): OrderIntent => ({
    side: order.side as OrderIntent['side'],
    quantity: BigInt(order.quantity!),
    price: BigInt(order.price!),
    tif: order.tif as OrderIntent['tif'],
    executionInstruction: order.executionInstruction as OrderIntent['executionInstruction'],
    minSizeAfterBlock: BigInt(order.minSizeAfterBlock!),
  }),
);
const expectedOrderIds = venue.expectedOrderIds.map(BigInt);
const batch: BatchIntent = { header, orders, cancelSlotIdxs: venue.cancelSlotIdxs, expectedOrderIds };
const replace: ReplaceBySlotIntent = { header, packedOps: venue.packedOps, expectedOrderIds };
const cancelTrigger: CancelTriggerIntent = {
  accountId: BigInt(venue.cancelTrigger.accountId!),
  authNonce: BigInt(venue.cancelTrigger.authNonce!),
  nonce: BigInt(venue.cancelTrigger.nonce!),
  deadline: BigInt(venue.cancelTrigger.deadline!),
  triggerId: venue.cancelTrigger.triggerId as Hex,
};

describe('venue SDK pinned values', () => {
  it('array hashes match', () => {
    expect(hashOrders(orders)).toBe(venue.hashes.ordersHash);
    expect(hashCancelSlotIdxs(venue.cancelSlotIdxs)).toBe(venue.hashes.cancelSlotIdxsHash);
    expect(hashExpectedOrderIds(expectedOrderIds)).toBe(venue.hashes.expectedOrderIdsHash);
    expect(hashPackedOps(venue.packedOps)).toBe(venue.hashes.packedOpsHash);
    expect(hashPackedOps('0x')).toBe(venue.hashes.emptyPackedOpsHash);
    expect(hashExpectedOrderIds([])).toBe(venue.hashes.emptyExpectedOrderIdsHash);
  });

  it.each(['1', '2'] as const)('intent digests under domain version %s match', (version) => {
    const domain = tradingWalletDomain({ chainId: venue.chainId, wallet: venue.wallet, version });
    expect(typedDataDigest(batchIntentTypedData({ domain, intent: batch }))).toBe(venue.digests[version].batch);
    expect(typedDataDigest(replaceBySlotIntentTypedData({ domain, intent: replace }))).toBe(venue.digests[version].replaceBySlot);
    expect(typedDataDigest(cancelTriggerIntentTypedData({ domain, intent: cancelTrigger }))).toBe(venue.digests[version].cancelTrigger);
  });

  it('the pinned version-1 signature recovers to the wallet under version 1 only', async () => {
    const signature = venue.replaceBySlotSignatureV1;
    const v1 = tradingWalletDomain({ chainId: venue.chainId, wallet: venue.wallet });
    const v2 = tradingWalletDomain({ chainId: venue.chainId, wallet: venue.wallet, version: '2' });
    expect(await recoverReplaceBySlotIntentSigner({ domain: v1, intent: replace, signature })).toBe(venue.wallet);
    expect(await recoverReplaceBySlotIntentSigner({ domain: v2, intent: replace, signature })).not.toBe(venue.wallet);
  });

  it('the EIP-7702 authorization digest matches', () => {
    const { chainId, delegate, nonce, digest } = venue.authorization7702;
    expect(hashAuthorization7702({ chainId: BigInt(chainId), delegate, nonce: BigInt(nonce) })).toBe(digest);
  });
});
