/**
 * EIP-712 intents: the type strings, the domains, digests checked against a hand-assembled
 * EIP-712 encoding, sign -> recover round trips, tampering, signer normalisation and the verifier.
 */
import { concat, keccak256, numberToHex, pad, recoverAddress, stringToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import {
  accountCoreDomain,
  authorizeAccountSignerTypes,
  batchIntentTypes,
  cancelTriggerIntentTypes,
  replaceBySlotIntentTypes,
  tradingWalletDomain,
  type Eip712Domain,
} from '../../src/protocol/eip712-types.ts';
import { hashCancelSlotIdxs, hashExpectedOrderIds, hashOrders } from '../../src/protocol/intent-hashes.ts';
import {
  SECP256K1_N,
  assertCanonicalSignature,
  authorizeAccountSignerTypedData,
  batchIntentTypedData,
  cancelTriggerIntentTypedData,
  recoverAuthorizeAccountSignerSigner,
  recoverBatchIntentSigner,
  recoverCancelTriggerIntentSigner,
  recoverReplaceBySlotIntentSigner,
  replaceBySlotIntentTypedData,
  signAuthorizeAccountSigner,
  signBatchIntent,
  signCancelTriggerIntent,
  signReplaceBySlotIntent,
  typedDataDigest,
  verifyTypedDataSignature,
  type IntentSigner,
} from '../../src/protocol/intent-signing.ts';
import type { AuthorizeAccountSignerIntent, BatchIntent, CancelTriggerIntent, ReplaceBySlotIntent } from '../../src/protocol/intent-types.ts';

// Public test keys (anvil accounts 0 and 1).
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const other = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const signerAddress = account.address.toLowerCase() as Address;

const wallet = signerAddress;
const domain = tradingWalletDomain({ chainId: 10143, wallet });
const coreDomain = accountCoreDomain({ chainId: 10143, accountCore: '0x00000000000000000000000000000000000c0de1' });

const header = {
  accountId: 7n,
  market: '0x1111111111111111111111111111111111111111',
  authNonce: 3n,
  nonce: 1_720_000_000_500n,
  deadline: 1_720_000_060n,
  clientOrderId: `0x${'ab'.repeat(32)}`,
  builder: '0x0000000000000000000000000000000000000000',
  builderFeePps: 0n,
} as const satisfies BatchIntent['header'];

const batch: BatchIntent = {
  header,
  orders: [
    { side: 'BUY', quantity: 1_000n, price: 99_000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 5n },
    { side: 'SELL', quantity: 2_000n, price: 101_000n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
    { side: 'BUY', quantity: 3_000n, price: 98_000n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
    { side: 'SELL', quantity: 4_000n, price: 102_000n, tif: 'FOK', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
  ],
  cancelSlotIdxs: [4, 9],
  expectedOrderIds: [11n, 12n, (1n << 64n) - 1n, (1n << 64n) - 1n, (1n << 64n) - 1n, (1n << 64n) - 1n],
};
const replace: ReplaceBySlotIntent = {
  header,
  packedOps: `0x${'00'.repeat(31)}04${'00'.repeat(10)}0000000500000000000000000000000a000186a00109`,
  expectedOrderIds: [11n, (1n << 64n) - 1n],
};
const cancelTrigger: CancelTriggerIntent = {
  accountId: 7n,
  authNonce: 3n,
  nonce: 1_720_000_000_501n,
  deadline: 1_720_000_060n,
  triggerId: `0x${'00'.repeat(31)}2a`,
};
const authorize: AuthorizeAccountSignerIntent = {
  account: '0x2222222222222222222222222222222222222222',
  authorizer: '0x2222222222222222222222222222222222222222',
  signer: wallet,
  permissions: 1n,
  expiry: 1_800_000_000n,
  nonce: 0n,
  deadline: 1_720_000_600n,
};

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

// ---- an independent EIP-712 encoder: words by hand ------------------------------------------------

const word = (value: bigint | number): Hex => pad(numberToHex(value), { size: 32 });
const addressWord = (address: string): Hex => pad(address as Hex, { size: 32 });
const typeHash = (text: string): Hex => keccak256(stringToHex(text));
function domainSeparator(d: Eip712Domain): Hex {
  return keccak256(
    concat([
      typeHash('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
      keccak256(stringToHex(d.name)),
      keccak256(stringToHex(d.version)),
      word(d.chainId),
      addressWord(d.verifyingContract),
    ]),
  );
}
const digestOf = (d: Eip712Domain, structHash: Hex): Hex => keccak256(concat(['0x1901', domainSeparator(d), structHash]));
const headerWords = (h: BatchIntent['header']): Hex[] => [
  word(h.accountId),
  addressWord(h.market),
  word(h.authNonce),
  word(h.nonce),
  word(h.deadline),
  h.clientOrderId,
  addressWord(h.builder),
  word(h.builderFeePps),
];
const HEADER_TYPE =
  'uint40 accountId,address market,uint256 authNonce,uint64 nonce,uint64 deadline,bytes32 clientOrderId,address builder,uint32 builderFeePps';

// The type strings exactly as protocol-facts.md writes them.
const typeStrings = {
  BatchIntent: `BatchIntent(${HEADER_TYPE},bytes32 ordersHash,bytes32 cancelSlotIdxsHash,bytes32 expectedOrderIdsHash)`,
  ReplaceBySlotIntent: `ReplaceBySlotIntent(${HEADER_TYPE},bytes32 packedOpsHash,bytes32 expectedOrderIdsHash)`,
  CancelTriggerIntent: 'CancelTriggerIntent(uint40 accountId,uint256 authNonce,uint64 nonce,uint64 deadline,bytes32 triggerId)',
  AuthorizeAccountSigner:
    'AuthorizeAccountSigner(address account,address authorizer,address signer,uint32 permissions,uint64 expiry,uint256 nonce,uint256 deadline)',
} as const;

describe('EIP-712 type definitions', () => {
  it.each([
    ['BatchIntent', batchIntentTypes.BatchIntent],
    ['ReplaceBySlotIntent', replaceBySlotIntentTypes.ReplaceBySlotIntent],
    ['CancelTriggerIntent', cancelTriggerIntentTypes.CancelTriggerIntent],
    ['AuthorizeAccountSigner', authorizeAccountSignerTypes.AuthorizeAccountSigner],
  ] as const)('%s has the fields of protocol-facts.md in order', (name, fields) => {
    expect(`${name}(${fields.map((field) => `${field.type} ${field.name}`).join(',')})`).toBe(typeStrings[name]);
  });
});

describe('domains', () => {
  it('trading wallet: version 1 by default, configurable, the wallet as verifying contract', () => {
    const mixedCase = '0xE05fcC23807536bEe418f142D19fa0d21BB0cfF7';
    expect(tradingWalletDomain({ chainId: 143, wallet: mixedCase as Address })).toEqual({
      name: 'KuruTradingWallet',
      version: '1',
      chainId: 143,
      verifyingContract: '0xe05fcc23807536bee418f142d19fa0d21bb0cff7',
    });
    expect(tradingWalletDomain({ chainId: 143, wallet, version: '2' }).version).toBe('2');
  });

  it('account core: KuruAccountCore version 1', () => {
    expect(coreDomain).toEqual({
      name: 'KuruAccountCore',
      version: '1',
      chainId: 10143,
      verifyingContract: '0x00000000000000000000000000000000000c0de1',
    });
  });

  it('refuses a bad chain id, address or empty version', () => {
    expect(isBaseError(errorOf(() => tradingWalletDomain({ chainId: 0, wallet })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    expect(isBaseError(errorOf(() => tradingWalletDomain({ chainId: 1.5, wallet })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    expect(isBaseError(errorOf(() => tradingWalletDomain({ chainId: 1, wallet: '0x1234' })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    expect(isBaseError(errorOf(() => tradingWalletDomain({ chainId: 1, wallet, version: '' })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    expect(isBaseError(errorOf(() => accountCoreDomain({ chainId: 1, accountCore: '0xzz' as Address })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(
      true,
    );
  });
});

describe('digests against a hand-assembled EIP-712 encoding', () => {
  it('BatchIntent', () => {
    const structHash = keccak256(
      concat([
        typeHash(typeStrings.BatchIntent),
        ...headerWords(header),
        hashOrders(batch.orders),
        hashCancelSlotIdxs(batch.cancelSlotIdxs),
        hashExpectedOrderIds(batch.expectedOrderIds),
      ]),
    );
    expect(typedDataDigest(batchIntentTypedData({ domain, intent: batch }))).toBe(digestOf(domain, structHash));
  });

  it('ReplaceBySlotIntent, under domain version 2', () => {
    const v2 = tradingWalletDomain({ chainId: 10143, wallet, version: '2' });
    const structHash = keccak256(
      concat([typeHash(typeStrings.ReplaceBySlotIntent), ...headerWords(header), keccak256(replace.packedOps), hashExpectedOrderIds(replace.expectedOrderIds)]),
    );
    expect(typedDataDigest(replaceBySlotIntentTypedData({ domain: v2, intent: replace }))).toBe(digestOf(v2, structHash));
  });

  it('CancelTriggerIntent', () => {
    const t = cancelTrigger;
    const structHash = keccak256(
      concat([typeHash(typeStrings.CancelTriggerIntent), word(t.accountId), word(t.authNonce), word(t.nonce), word(t.deadline), t.triggerId]),
    );
    expect(typedDataDigest(cancelTriggerIntentTypedData({ domain, intent: t }))).toBe(digestOf(domain, structHash));
  });

  it('AuthorizeAccountSigner, in the account-core domain', () => {
    const a = authorize;
    const structHash = keccak256(
      concat([
        typeHash(typeStrings.AuthorizeAccountSigner),
        addressWord(a.account),
        addressWord(a.authorizer),
        addressWord(a.signer),
        word(a.permissions),
        word(a.expiry),
        word(a.nonce),
        word(a.deadline),
      ]),
    );
    expect(typedDataDigest(authorizeAccountSignerTypedData({ domain: coreDomain, intent: a }))).toBe(digestOf(coreDomain, structHash));
  });
});

const SIGNATURE_FORM = /^0x[0-9a-f]{128}(1b|1c)$/;
const HALF_N = SECP256K1_N >> 1n;

describe('sign -> recover round trips', () => {
  it('BatchIntent', async () => {
    const signature = await signBatchIntent(account, { domain, intent: batch });
    expect(signature).toMatch(SIGNATURE_FORM);
    expect(BigInt(`0x${signature.slice(66, 130)}`) <= HALF_N).toBe(true);
    expect(await recoverBatchIntentSigner({ domain, intent: batch, signature })).toBe(signerAddress);
  });

  it('ReplaceBySlotIntent', async () => {
    const signature = await signReplaceBySlotIntent(account, { domain, intent: replace });
    expect(signature).toMatch(SIGNATURE_FORM);
    expect(await recoverReplaceBySlotIntentSigner({ domain, intent: replace, signature })).toBe(signerAddress);
  });

  it('CancelTriggerIntent', async () => {
    const signature = await signCancelTriggerIntent(account, { domain, intent: cancelTrigger });
    expect(signature).toMatch(SIGNATURE_FORM);
    expect(await recoverCancelTriggerIntentSigner({ domain, intent: cancelTrigger, signature })).toBe(signerAddress);
  });

  it('AuthorizeAccountSigner', async () => {
    const signature = await signAuthorizeAccountSigner(other, { domain: coreDomain, intent: authorize });
    expect(signature).toMatch(SIGNATURE_FORM);
    expect(await recoverAuthorizeAccountSignerSigner({ domain: coreDomain, intent: authorize, signature })).toBe(other.address.toLowerCase());
  });

  it('the signature is the one viem signs for the same typed data', async () => {
    const typedData = batchIntentTypedData({ domain, intent: batch });
    expect(await signBatchIntent(account, { domain, intent: batch })).toBe(await account.signTypedData(typedData));
  });
});

describe('tampering with any signed field changes the recovered address', () => {
  const max = (1n << 64n) - 1n;
  const batchMutations: [string, (b: BatchIntent) => BatchIntent][] = [
    ['accountId', (b) => ({ ...b, header: { ...b.header, accountId: b.header.accountId + 1n } })],
    ['market', (b) => ({ ...b, header: { ...b.header, market: '0x1111111111111111111111111111111111111112' } })],
    ['authNonce', (b) => ({ ...b, header: { ...b.header, authNonce: b.header.authNonce + 1n } })],
    ['nonce', (b) => ({ ...b, header: { ...b.header, nonce: b.header.nonce + 1n } })],
    ['deadline', (b) => ({ ...b, header: { ...b.header, deadline: b.header.deadline + 1n } })],
    ['clientOrderId', (b) => ({ ...b, header: { ...b.header, clientOrderId: `0x${'ab'.repeat(31)}ac` } })],
    ['builder', (b) => ({ ...b, header: { ...b.header, builder: '0x0000000000000000000000000000000000000001' } })],
    ['builderFeePps', (b) => ({ ...b, header: { ...b.header, builderFeePps: 1n } })],
    ['orders[0].side', (b) => ({ ...b, orders: [{ ...b.orders[0]!, side: 'SELL' }, ...b.orders.slice(1)] })],
    ['orders[0].quantity', (b) => ({ ...b, orders: [{ ...b.orders[0]!, quantity: 1_001n }, ...b.orders.slice(1)] })],
    ['orders[0].price', (b) => ({ ...b, orders: [{ ...b.orders[0]!, price: 99_001n }, ...b.orders.slice(1)] })],
    ['orders[0].tif', (b) => ({ ...b, orders: [{ ...b.orders[0]!, tif: 'IOC' }, ...b.orders.slice(1)] })],
    ['orders[0].executionInstruction', (b) => ({ ...b, orders: [{ ...b.orders[0]!, executionInstruction: 'NONE' }, ...b.orders.slice(1)] })],
    ['orders[0].minSizeAfterBlock', (b) => ({ ...b, orders: [{ ...b.orders[0]!, minSizeAfterBlock: 6n }, ...b.orders.slice(1)] })],
    ['orders order', (b) => ({ ...b, orders: [b.orders[1]!, b.orders[0]!, ...b.orders.slice(2)] })],
    ['orders dropped', (b) => ({ ...b, orders: b.orders.slice(1) })],
    ['cancelSlotIdxs', (b) => ({ ...b, cancelSlotIdxs: [4, 10] })],
    ['expectedOrderIds', (b) => ({ ...b, expectedOrderIds: [11n, 13n, max, max, max, max] })],
  ];

  it.each(batchMutations)('BatchIntent: %s', async (_field, mutate) => {
    const signature = await signBatchIntent(account, { domain, intent: batch });
    expect(await recoverBatchIntentSigner({ domain, intent: mutate(batch), signature })).not.toBe(signerAddress);
  });

  it.each([
    ['chainId', { ...domain, chainId: 143 }],
    ['verifyingContract', { ...domain, verifyingContract: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address }],
    ['version', { ...domain, version: '2' }],
  ] as const)('BatchIntent domain: %s', async (_field, tampered) => {
    const signature = await signBatchIntent(account, { domain, intent: batch });
    expect(await recoverBatchIntentSigner({ domain: tampered, intent: batch, signature })).not.toBe(signerAddress);
  });

  it.each([
    ['header.nonce', { ...replace, header: { ...header, nonce: header.nonce + 1n } }],
    ['packedOps', { ...replace, packedOps: `${replace.packedOps.slice(0, -2)}08` as Hex }],
    ['expectedOrderIds', { ...replace, expectedOrderIds: [12n, (1n << 64n) - 1n] }],
  ] as const)('ReplaceBySlotIntent: %s', async (_field, tampered) => {
    const signature = await signReplaceBySlotIntent(account, { domain, intent: replace });
    expect(await recoverReplaceBySlotIntentSigner({ domain, intent: tampered, signature })).not.toBe(signerAddress);
  });

  it.each([
    ['accountId', { ...cancelTrigger, accountId: 8n }],
    ['authNonce', { ...cancelTrigger, authNonce: 4n }],
    ['nonce', { ...cancelTrigger, nonce: cancelTrigger.nonce + 1n }],
    ['deadline', { ...cancelTrigger, deadline: cancelTrigger.deadline + 1n }],
    ['triggerId', { ...cancelTrigger, triggerId: `0x${'00'.repeat(31)}2b` as Hex }],
  ] as const)('CancelTriggerIntent: %s', async (_field, tampered) => {
    const signature = await signCancelTriggerIntent(account, { domain, intent: cancelTrigger });
    expect(await recoverCancelTriggerIntentSigner({ domain, intent: tampered, signature })).not.toBe(signerAddress);
  });

  it.each([
    ['account', { ...authorize, account: '0x2222222222222222222222222222222222222223' as Address }],
    ['authorizer', { ...authorize, authorizer: '0x2222222222222222222222222222222222222223' as Address }],
    ['signer', { ...authorize, signer: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address }],
    ['permissions', { ...authorize, permissions: 17n }],
    ['expiry', { ...authorize, expiry: authorize.expiry + 1n }],
    ['nonce', { ...authorize, nonce: 1n }],
    ['deadline', { ...authorize, deadline: authorize.deadline + 1n }],
  ] as const)('AuthorizeAccountSigner: %s', async (_field, tampered) => {
    const signature = await signAuthorizeAccountSigner(account, { domain: coreDomain, intent: authorize });
    expect(await recoverAuthorizeAccountSignerSigner({ domain: coreDomain, intent: tampered, signature })).not.toBe(signerAddress);
  });
});

describe('signers', () => {
  /** A remote signer that delegates to the local key and then rewrites the signature. */
  function remote(rewrite: (signature: Hex) => string): IntentSigner {
    return {
      address: account.address,
      signTypedData: async (parameters) => rewrite(await account.signTypedData(parameters)) as Hex,
    };
  }

  it('a remote signer fits, and its v 0/1 and upper-case output are normalised', async () => {
    const expected = await signBatchIntent(account, { domain, intent: batch });
    const yParityForm = remote((signature) => `${signature.slice(0, 130)}${signature.endsWith('1b') ? '00' : '01'}`);
    const upperCase = remote((signature) => `0x${signature.slice(2).toUpperCase()}`);
    expect(await signBatchIntent(yParityForm, { domain, intent: batch })).toBe(expected);
    expect(await signBatchIntent(upperCase, { domain, intent: batch })).toBe(expected);
  });

  it('a high-s or truncated signature from a signer is refused', async () => {
    const highS = remote((signature) => {
      const s = SECP256K1_N - BigInt(`0x${signature.slice(66, 130)}`);
      return `${signature.slice(0, 66)}${s.toString(16).padStart(64, '0')}${signature.endsWith('1b') ? '1c' : '1b'}`;
    });
    const truncated = remote((signature) => signature.slice(0, 130));
    expect(isBaseError(await rejectionOf(signBatchIntent(highS, { domain, intent: batch })), 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
    expect(isBaseError(await rejectionOf(signBatchIntent(truncated, { domain, intent: batch })), 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });

  it('intents whose values do not fit their types are refused before signing', () => {
    const tooBig = { ...batch, header: { ...header, accountId: 1n << 40n } };
    expect(isBaseError(errorOf(() => batchIntentTypedData({ domain, intent: tooBig })), 'UNITS_OUT_OF_RANGE')).toBe(true);
    const badMarket = { ...batch, header: { ...header, market: '0x11' as Address } };
    expect(isBaseError(errorOf(() => batchIntentTypedData({ domain, intent: badMarket })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    const badTrigger = { ...cancelTrigger, triggerId: '0x2a' as Hex };
    expect(isBaseError(errorOf(() => cancelTriggerIntentTypedData({ domain, intent: badTrigger })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
  });
});

describe('typedDataDigest', () => {
  it('turns data that does not fit its types into PROTOCOL_SCHEMA_MISMATCH', () => {
    const typedData = cancelTriggerIntentTypedData({ domain, intent: cancelTrigger });
    const bad = { ...typedData, message: { ...typedData.message, accountId: 2 ** 41 } };
    expect(isBaseError(errorOf(() => typedDataDigest(bad)), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
  });
});

describe('the signature verifier', () => {
  async function validSignature(): Promise<Hex> {
    return signCancelTriggerIntent(account, { domain, intent: cancelTrigger });
  }
  const code = (action: () => unknown) => (errorOf(action) as { code?: string }).code;

  it('accepts the canonical form and lowercases it', async () => {
    const signature = await validSignature();
    expect(assertCanonicalSignature(signature)).toBe(signature);
    expect(assertCanonicalSignature(`0x${signature.slice(2).toUpperCase()}`)).toBe(signature);
  });

  it('refuses the high-s twin that plain ecrecover would accept', async () => {
    const signature = await validSignature();
    const s = SECP256K1_N - BigInt(`0x${signature.slice(66, 130)}`);
    const twin = `${signature.slice(0, 66)}${s.toString(16).padStart(64, '0')}${signature.endsWith('1b') ? '1c' : '1b'}` as Hex;
    const digest = typedDataDigest(cancelTriggerIntentTypedData({ domain, intent: cancelTrigger }));
    expect((await recoverAddress({ hash: digest, signature: twin })).toLowerCase()).toBe(signerAddress);
    expect(code(() => assertCanonicalSignature(twin))).toBe('PROTOCOL_SIGNATURE_INVALID');
    const recovery = await rejectionOf(recoverCancelTriggerIntentSigner({ domain, intent: cancelTrigger, signature: twin }));
    expect(isBaseError(recovery, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });

  it('refuses malformed lengths, v, r and s', async () => {
    const signature = await validSignature();
    const r = signature.slice(2, 66);
    const s = signature.slice(66, 130);
    for (const bad of [
      signature.slice(0, 130), // 64 bytes
      `${signature}00`, // 66 bytes
      `${signature}0`, // odd
      signature.slice(2), // no 0x
      `0x${r}${s}00`, // v 0 (only 27/28 on the wire)
      `0x${r}${s}1d`, // v 29
      `0x${'00'.repeat(32)}${s}1b`, // r = 0
      `0x${SECP256K1_N.toString(16)}${s}1b`, // r = n
      `0x${r}${'00'.repeat(32)}1b`, // s = 0
      `0x${r}${'zz'.repeat(32)}1b`, // not hex
    ]) {
      expect(code(() => assertCanonicalSignature(bad))).toBe('PROTOCOL_SIGNATURE_INVALID');
    }
  });

  it('verifyTypedDataSignature refuses a signature of another signer', async () => {
    const typedData = cancelTriggerIntentTypedData({ domain, intent: cancelTrigger });
    const signature = await validSignature();
    await expect(verifyTypedDataSignature({ typedData, signature, signer: account.address })).resolves.toBeUndefined();
    const error = await rejectionOf(verifyTypedDataSignature({ typedData, signature, signer: other.address }));
    expect(isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });
});
