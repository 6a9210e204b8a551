import { keccak256 } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { tradingWalletDomain } from '../src/protocol/eip712-types.ts';
import { batchIntentDigest, batchIntentTypedData, signBatchIntent } from '../src/protocol/intent-signing.ts';
import type { BatchIntent } from '../src/protocol/intent-types.ts';
import { keccak256Bytes } from '../src/protocol/keccak256.ts';
import { decodePackedOps, encodePackedOps, type PackedOp } from '../src/protocol/packed-ops.ts';
import type { Benchmark } from './harness.ts';

// A public test key (anvil account 0).
const privateKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const account = privateKeyToAccount(privateKey);
const domain = tradingWalletDomain({ chainId: 10143, wallet: account.address });
const empty = (1n << 64n) - 1n;
const intent: BatchIntent = {
  header: {
    accountId: 7n,
    market: '0x1111111111111111111111111111111111111111',
    authNonce: 3n,
    nonce: 1_720_000_000_500n,
    deadline: 1_720_000_060n,
    clientOrderId: `0x${'ab'.repeat(32)}`,
    builder: '0x0000000000000000000000000000000000000000',
    builderFeePps: 0n,
  },
  orders: [
    { side: 'BUY', quantity: 1_000n, price: 99_000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
    { side: 'BUY', quantity: 2_000n, price: 98_000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
    { side: 'SELL', quantity: 1_000n, price: 101_000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
    { side: 'SELL', quantity: 2_000n, price: 102_000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n },
  ],
  cancelSlotIdxs: [0, 1, 2, 3],
  expectedOrderIds: [11n, 12n, 13n, empty],
};
// The same typed data, hashes computed once: what a bare viem call signs.
const typedData = batchIntentTypedData({ domain, intent });

const ops: PackedOp[] = Array.from({ length: 62 }, (_, slotIdx) =>
  slotIdx % 5 === 0
    ? { slotIdx, kind: 'cancel' }
    : {
        slotIdx,
        kind: 'place',
        side: slotIdx % 2 === 0 ? 'BUY' : 'SELL',
        postOnly: slotIdx % 3 === 0,
        price: 100_000n + BigInt(slotIdx),
        size: 1_000_000n * BigInt(slotIdx),
        minSizeAfterBlock: BigInt(slotIdx % 4),
      },
);

const SIGNATURES = 200;
const ROUND_TRIPS = 2_000;
const HASHES = 5_000;
// 832 bytes: 7 Keccak-f[1600] permutations (rate 136), like the ordersHash of a 4-order batch.
const keccakInput = Uint8Array.from({ length: 832 }, (_, i) => (i * 167 + 29) & 0xff);

const digest = batchIntentDigest({ domain, intent });

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'secp256k1: one bare signature of a digest (viem sign)',
    unit: 'signatures',
    async run() {
      for (let i = 0; i < SIGNATURES; i++) await sign({ hash: digest, privateKey });
      return SIGNATURES;
    },
  },
  {
    name: 'EIP-712 digest of a BatchIntent, 4 cancels + 4 orders',
    unit: 'digests',
    run() {
      for (let i = 0; i < ROUND_TRIPS; i++) batchIntentDigest({ domain, intent });
      return ROUND_TRIPS;
    },
  },
  {
    name: 'signing: BatchIntent, 4 cancels + 4 orders (signBatchIntent)',
    unit: 'signatures',
    async run() {
      for (let i = 0; i < SIGNATURES; i++) await signBatchIntent(account, { domain, intent });
      return SIGNATURES;
    },
  },
  {
    name: 'signing: same typed data, bare viem signTypedData',
    unit: 'signatures',
    async run() {
      for (let i = 0; i < SIGNATURES; i++) await account.signTypedData(typedData);
      return SIGNATURES;
    },
  },
  {
    name: 'keccak-256: 832 bytes (viem)',
    unit: 'digests',
    run() {
      for (let i = 0; i < HASHES; i++) keccak256(keccakInput, 'bytes');
      return HASHES;
    },
  },
  {
    name: 'keccak-256: 832 bytes (ours)',
    unit: 'digests',
    run() {
      for (let i = 0; i < HASHES; i++) keccak256Bytes(keccakInput);
      return HASHES;
    },
  },
  {
    name: 'packed ops: encode + decode of 62 ops',
    unit: 'round trips',
    run() {
      for (let i = 0; i < ROUND_TRIPS; i++) decodePackedOps(encodePackedOps(ops));
      return ROUND_TRIPS;
    },
  },
];
