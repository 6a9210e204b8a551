/**
 * fast-check arbitraries of valid typed relay intents: for property tests of strategies, engines and
 * the wire contract. Every value they make passes the relay's strict schemas once encoded.
 */
import fc from 'fast-check';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import { toHexBytes, uintMax, type Address } from '../protocol/encoding.ts';
import type { BatchIntent, IntentHeader, OrderIntent } from '../protocol/intent-types.ts';

export const address = fc.bigInt({ min: 0n, max: uintMax(160) }).map((v) => toHexBytes(v, 20) as Address);
export const bytes32 = fc.bigInt({ min: 0n, max: uintMax(256) }).map((v) => toHexBytes(v, 32));
export const signature = fc.bigInt({ min: 0n, max: uintMax(520) }).map((v) => toHexBytes(v, 65));

export const header: fc.Arbitrary<IntentHeader> = fc
  .record({
    accountId: fc.bigInt({ min: 0n, max: uintMax(40) }),
    market: address,
    authNonce: fc.bigInt({ min: 0n, max: uintMax(256) }),
    nonce: fc.bigInt({ min: 1n, max: uintMax(64) }),
    deadline: fc.bigInt({ min: 0n, max: uintMax(64) }),
    clientOrderId: bytes32,
    builder: fc.option(address.filter((a) => BigInt(a) !== 0n), { nil: undefined }),
    builderFeePps: fc.bigInt({ min: 1n, max: uintMax(32) }),
  })
  .map(({ builder, builderFeePps, ...rest }) => ({
    ...rest,
    builder: builder ?? (toHexBytes(0n, 20) as Address),
    builderFeePps: builder ? builderFeePps : 0n,
  }));

export const order: fc.Arbitrary<OrderIntent> = fc
  .record({
    side: fc.constantFrom('BUY', 'SELL'),
    quantity: fc.bigInt({ min: 1n, max: uintMax(96) }),
    price: fc.bigInt({ min: 1n, max: uintMax(32) - 1n }),
    tif: fc.constantFrom('GTC', 'IOC', 'FOK'),
    postOnly: fc.boolean(),
    minSizeAfterBlock: fc.bigInt({ min: 0n, max: uintMax(32) }),
  })
  .map(({ postOnly, ...o }) => ({
    ...o,
    executionInstruction: postOnly && o.tif === 'GTC' ? 'POST_ONLY' : 'NONE',
    minSizeAfterBlock: o.tif === 'GTC' ? o.minSizeAfterBlock : 0n,
  }));

export const batch: fc.Arbitrary<BatchIntent> = fc
  .record({
    header,
    orders: fc.array(order, { maxLength: 5 }),
    cancelSlotIdxs: fc.uniqueArray(fc.integer({ min: 0, max: MAKER_SLOTS - 1 }), { maxLength: 5 }),
  })
  .filter((b) => b.orders.length + b.cancelSlotIdxs.length > 0)
  .chain((b) =>
    fc.array(fc.bigInt({ min: 0n, max: uintMax(64) }), { minLength: b.cancelSlotIdxs.length, maxLength: b.cancelSlotIdxs.length }).map(
      (expectedOrderIds) => ({ ...b, expectedOrderIds }),
    ),
  );

