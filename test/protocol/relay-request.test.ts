import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { encodeBatchPayload, encodeAuthorizeSignerPayload } from '../../src/protocol/relay-payloads.ts';
import { encodeRelayRestRequest, encodeRelayWsMessage, parseRelayRestRequest, parseRelayWsMessage, withPayloadSignature } from '../../src/protocol/relay-request.ts';
import { address, batch, signature } from '../../src/testing/arbitraries.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const wallet = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const requestId = '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b';
const sig = `0x${'ab'.repeat(65)}` as const;

const validBatch = {
  header: {
    accountId: '7',
    market: '0x1111111111111111111111111111111111111111',
    authNonce: '0',
    nonce: '1723161600000',
    deadline: '1723161660',
    clientOrderId: `0x${'00'.repeat(31)}01`,
    builder: `0x${'00'.repeat(20)}`,
    builderFeePps: '0',
  },
  orders: [{ side: 'BUY', quantity: '1500', price: '34125', tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: '0' }],
  cancelSlotIdxs: ['3'],
  expectedOrderIds: ['42'],
  signature: sig,
};

function rest(payload: unknown, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ requestId, method: RelayMethod.executeBatch, wallet, payload, authorization7702: null, ...extra });
}

function expectError(text: string, code: string, path?: string) {
  const result = parseRelayRestRequest(text);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe(code);
  if (path !== undefined) expect(result.error.path).toBe(path);
}

describe('parseRelayRestRequest', () => {
  it('parses a valid batch into typed values', () => {
    const result = parseRelayRestRequest(rest(validBatch));
    expect(result.ok).toBe(true);
    if (!result.ok || result.value.method !== RelayMethod.executeBatch) throw new Error('unreachable');
    expect(result.value.requestId).toBe(requestId);
    expect(result.value.payload.header.nonce).toBe(1_723_161_600_000n);
    expect(result.value.payload.orders[0]).toEqual({
      side: 'BUY',
      quantity: 1500n,
      price: 34125n,
      tif: 'GTC',
      executionInstruction: 'POST_ONLY',
      minSizeAfterBlock: 0n,
    });
    expect(result.value.payload.cancelSlotIdxs).toEqual([3]);
    expect(result.value.authorization7702).toBeNull();
  });

  it('round-trips every valid batch through the encoder and the strict parser', () => {
    fc.assert(
      fc.property(batch, signature, (intent, signatureHex) => {
        const result = parseRelayRestRequest(rest(encodeBatchPayload(intent, signatureHex)));
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value.payload).toEqual({ ...intent, signature: signatureHex });
      }),
      fuzzSettings({ numRuns: 200 }),
    );
  });

  it('refuses unknown fields at any depth, naming the path', () => {
    expectError(rest(validBatch, { extra: 1 }), 'UNKNOWN_FIELD', '$.extra');
    expectError(rest({ ...validBatch, extra: 1 }), 'UNKNOWN_FIELD', '$.payload.extra');
    expectError(rest({ ...validBatch, header: { ...validBatch.header, extra: 1 } }), 'UNKNOWN_FIELD', '$.payload.header.extra');
    expectError(rest({ ...validBatch, orders: [{ ...validBatch.orders[0], extra: 1 }] }), 'UNKNOWN_FIELD', '$.payload.orders[0].extra');
  });

  it('refuses duplicate fields that JSON.parse would hide', () => {
    const text = rest(validBatch).replace('"nonce":"1723161600000"', '"nonce":"1723161600000","nonce":"1"');
    expect(JSON.parse(text).payload.header.nonce).toBe('1');
    expectError(text, 'DUPLICATE_FIELD', '$.payload.header.nonce');
    const result = parseRelayRestRequest(text);
    expect(!result.ok && result.error.id).toBe(requestId);
  });

  it('refuses non-canonical integers and hex', () => {
    for (const nonce of ['01723161600000', '+1', '-1', '1e3', ' 1', '1.0', '0x10', '']) {
      expectError(rest({ ...validBatch, header: { ...validBatch.header, nonce } }), 'NON_CANONICAL', '$.payload.header.nonce');
    }
    expectError(rest({ ...validBatch, header: { ...validBatch.header, nonce: '18446744073709551616' } }), 'INVALID_REQUEST', '$.payload.header.nonce');
    expectError(rest({ ...validBatch, header: { ...validBatch.header, nonce: 1 } }), 'INVALID_REQUEST', '$.payload.header.nonce');
    expectError(rest({ ...validBatch, header: { ...validBatch.header, market: validBatch.header.market.replace('0x11', '0x1A') } }), 'NON_CANONICAL');
    expectError(rest(validBatch, { wallet: wallet.toUpperCase().replace('0X', '0x') }), 'NON_CANONICAL', '$.wallet');
    expectError(rest({ ...validBatch, signature: sig.slice(0, -2) }), 'NON_CANONICAL', '$.payload.signature');
  });

  it('checks the order and batch rules', () => {
    const order = validBatch.orders[0]!;
    const withOrder = (patch: Record<string, string>) => rest({ ...validBatch, orders: [{ ...order, ...patch }] });
    expectError(withOrder({ price: '0' }), 'INVALID_REQUEST', '$.payload.orders[0].price');
    expectError(withOrder({ price: '4294967295' }), 'INVALID_REQUEST', '$.payload.orders[0].price');
    expectError(withOrder({ quantity: '0' }), 'INVALID_REQUEST', '$.payload.orders[0].quantity');
    expectError(withOrder({ tif: 'IOC' }), 'INVALID_REQUEST', '$.payload.orders[0].executionInstruction');
    expectError(withOrder({ executionInstruction: 'NONE', tif: 'FOK', minSizeAfterBlock: '5' }), 'INVALID_REQUEST', '$.payload.orders[0].minSizeAfterBlock');
    expectError(withOrder({ side: 'buy' }), 'INVALID_REQUEST', '$.payload.orders[0].side');
    expectError(rest({ ...validBatch, cancelSlotIdxs: ['62'] }), 'INVALID_REQUEST', '$.payload.cancelSlotIdxs[0]');
    expectError(rest({ ...validBatch, cancelSlotIdxs: ['03'] }), 'NON_CANONICAL', '$.payload.cancelSlotIdxs[0]');
    expectError(rest({ ...validBatch, cancelSlotIdxs: ['3', '3'], expectedOrderIds: ['1', '2'] }), 'INVALID_REQUEST', '$.payload.cancelSlotIdxs');
    expectError(rest({ ...validBatch, expectedOrderIds: [] }), 'INVALID_REQUEST', '$.payload.expectedOrderIds');
    expectError(rest({ ...validBatch, orders: [], cancelSlotIdxs: [], expectedOrderIds: [] }), 'INVALID_REQUEST');
    expectError(rest({ ...validBatch, header: { ...validBatch.header, builderFeePps: '5' } }), 'INVALID_REQUEST', '$.payload.header.builderFeePps');
    expectError(rest({ ...validBatch, header: { ...validBatch.header, nonce: '0' } }), 'INVALID_REQUEST', '$.payload.header.nonce');
  });

  it('refuses the trigger-creation methods as unsupported, and unknown methods', () => {
    expectError(rest(validBatch, { method: RelayMethod.createBatchTrigger }), 'UNSUPPORTED_METHOD', '$.method');
    expectError(rest(validBatch, { method: RelayMethod.createReplaceTrigger }), 'UNSUPPORTED_METHOD', '$.method');
    expectError(rest(validBatch, { method: 'wallet.withdraw' }), 'INVALID_REQUEST', '$.method');
  });

  it('binds the authorize-signer signer and the 7702 authority to the request wallet', () => {
    const authorize = encodeAuthorizeSignerPayload(
      { account: wallet, authorizer: wallet, signer: wallet, permissions: 1n, expiry: 0n, nonce: 0n, deadline: 1n },
      sig,
    );
    const ok = rest(authorize, { method: RelayMethod.authorizeAccountSigner });
    expect(parseRelayRestRequest(ok).ok).toBe(true);
    expectError(rest({ ...authorize, signer: `0x${'22'.repeat(20)}` }, { method: RelayMethod.authorizeAccountSigner }), 'WALLET_MISMATCH');
    expectError(rest({ ...authorize, permissions: '2' }, { method: RelayMethod.authorizeAccountSigner }), 'INVALID_REQUEST');
    const auth7702 = { authority: `0x${'22'.repeat(20)}`, chainId: '31337', delegate: wallet, nonce: '0', yParity: '1', r: `0x${'01'.repeat(32)}`, s: `0x${'02'.repeat(32)}` };
    expectError(rest(authorize, { method: RelayMethod.authorizeAccountSigner, authorization7702: auth7702 }), 'WALLET_MISMATCH', '$.authorization7702.authority');
    const good = parseRelayRestRequest(rest(authorize, { method: RelayMethod.authorizeAccountSigner, authorization7702: { ...auth7702, authority: wallet } }));
    expect(good.ok && good.value.authorization7702).toEqual({ ...auth7702, authority: wallet, chainId: 31337n, nonce: 0n, yParity: 1 });
  });

  it('refuses a bad envelope', () => {
    expectError(rest(validBatch, { requestId: '019a2b3c-4d5e-4f60-8a1b-2c3d4e5f6a7b' }), 'INVALID_REQUEST', '$.requestId');
    expectError(rest(validBatch, { requestId: requestId.toUpperCase() }), 'INVALID_REQUEST', '$.requestId');
    expectError('{"requestId":', 'INVALID_JSON');
    expectError('[]', 'INVALID_REQUEST', '$');
  });

  it('answers any input with a value, never a throw', () => {
    const mutated = fc.tuple(fc.nat(), fc.string({ maxLength: 3 })).map(([at, insert]) => {
      const text = rest(validBatch);
      const i = at % text.length;
      return text.slice(0, i) + insert + text.slice(i + 1);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutated, fc.json()), (text) => {
        const result = parseRelayRestRequest(text);
        if (!result.ok) expect(result.error.code).toMatch(/^[A-Z_]+$/);
      }),
      fuzzSettings({ numRuns: 500 }),
    );
  });
});

describe('parseRelayWsMessage', () => {
  it('parses a message with an id and no wallet', () => {
    const text = JSON.stringify({ id: requestId, method: RelayMethod.executeBatch, payload: validBatch, authorization7702: null });
    const result = parseRelayWsMessage(text, wallet);
    expect(result.ok && result.value.id).toBe(requestId);
  });

  it('refuses a wallet field, a missing or too long id, and keeps the id for the answer', () => {
    const base = { id: 'abc', method: RelayMethod.executeBatch, payload: validBatch };
    const withWallet = parseRelayWsMessage(JSON.stringify({ ...base, wallet }), wallet);
    expect(!withWallet.ok && [withWallet.error.code, withWallet.error.path, withWallet.error.id]).toEqual(['UNKNOWN_FIELD', '$.wallet', 'abc']);
    const longId = parseRelayWsMessage(JSON.stringify({ ...base, id: 'x'.repeat(65) }), wallet);
    expect(!longId.ok && longId.error.code).toBe('INVALID_REQUEST');
    const noId = parseRelayWsMessage(JSON.stringify({ method: base.method, payload: validBatch }), wallet);
    expect(!noId.ok && noId.error.id).toBeUndefined();
  });

  it('checks the wallet bindings against the connection wallet', () => {
    fc.assert(
      fc.property(address, (other) => {
        fc.pre(other !== wallet);
        const authorize = encodeAuthorizeSignerPayload({ account: other, authorizer: other, signer: wallet, permissions: 1n, expiry: 0n, nonce: 0n, deadline: 1n }, sig);
        const text = JSON.stringify({ id: '1', method: RelayMethod.authorizeAccountSigner, payload: authorize });
        expect(parseRelayWsMessage(text, wallet).ok).toBe(true);
        const result = parseRelayWsMessage(text, other);
        expect(!result.ok && result.error.code).toBe('WALLET_MISMATCH');
      }),
      fuzzSettings({ numRuns: 50 }),
    );
  });
});

describe('encodeRelayRestRequest / encodeRelayWsMessage', () => {
  it('write what the strict parsers read back to the same typed request', () => {
    fc.assert(
      fc.property(batch, signature, (intent, signatureHex) => {
        const payload = { ...intent, signature: signatureHex };
        const restText = encodeRelayRestRequest({ requestId, wallet, method: RelayMethod.executeBatch, payload, authorization7702: null });
        const restParsed = parseRelayRestRequest(restText);
        expect(restParsed.ok && restParsed.value).toEqual({ requestId, wallet, method: RelayMethod.executeBatch, payload, authorization7702: null });
        const wsText = encodeRelayWsMessage({ id: requestId, method: RelayMethod.executeBatch, payload, authorization7702: null });
        const wsParsed = parseRelayWsMessage(wsText, wallet);
        expect(wsParsed.ok && wsParsed.value).toEqual({ id: requestId, method: RelayMethod.executeBatch, payload, authorization7702: null });
      }),
      fuzzSettings({ numRuns: 100 }),
    );
  });

  it('write what JSON.stringify writes of the envelope, and a signed payload put together from the unsigned text equals a fresh one', () => {
    fc.assert(
      fc.property(batch, signature, signature, (intent, first, second) => {
        const unsigned = { requestId, wallet, method: RelayMethod.executeBatch, payload: { ...intent, signature: first }, authorization7702: null } as const;
        const envelope = (payload: unknown) => JSON.stringify({ requestId, method: RelayMethod.executeBatch, wallet, payload, authorization7702: null });
        expect(encodeRelayRestRequest(unsigned)).toBe(envelope(encodeBatchPayload(intent, first)));
        const signed = withPayloadSignature(unsigned, second);
        expect(signed.payload).toEqual({ ...intent, signature: second });
        expect(unsigned.payload.signature, 'the unsigned request is unchanged').toBe(first);
        expect(encodeRelayRestRequest(signed)).toBe(envelope(encodeBatchPayload(intent, second)));
        expect(encodeRelayWsMessage({ id: requestId, method: signed.method, payload: signed.payload, authorization7702: null })).toBe(
          JSON.stringify({ id: requestId, method: RelayMethod.executeBatch, payload: encodeBatchPayload(intent, second), authorization7702: null }),
        );
      }),
      fuzzSettings({ numRuns: 100 }),
    );
  });
});
