/**
 * EIP-7702 authorization: the digest rule (by hand-assembled RLP, against viem's hashAuthorization),
 * signing to the wire form, recovery and refusal of non-canonical or tampered authorizations.
 */
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hashAuthorization, recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import {
  hashAuthorization7702,
  recoverAuthorization7702Authority,
  signAuthorization7702,
  verifyAuthorization7702,
  type AuthorizationSigner,
} from '../../src/protocol/eip7702.ts';
import { SECP256K1_N } from '../../src/protocol/intent-signing.ts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const authority = account.address.toLowerCase() as Address;
const delegate = '0x6666666666666666666666666666666666666666' as Address;

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('the authorization digest', () => {
  it('is keccak256(0x05 ‖ rlp([chainId, delegate, nonce])), RLP assembled by hand', () => {
    const address = delegate.slice(2);
    // 143 = 0x8f needs a one-byte string prefix 0x81; 7 is its own byte; the address is 0x94 + 20 bytes.
    expect(hashAuthorization7702({ chainId: 143n, delegate, nonce: 7n })).toBe(keccak256(`0x05d8818f94${address}07`));
    // zero is the empty string 0x80. List prefix: 0xc0 + payload length.
    expect(hashAuthorization7702({ chainId: 0n, delegate, nonce: 0n })).toBe(keccak256(`0x05d78094${address}80`));
    // 10143 = 0x279f (two bytes, prefix 0x82); 256 = 0x0100 (prefix 0x82).
    expect(hashAuthorization7702({ chainId: 10143n, delegate, nonce: 256n })).toBe(keccak256(`0x05db82279f94${address}820100`));
  });

  it('agrees with viem hashAuthorization', () => {
    for (const chainId of [0, 1, 143, 10143, 31337, 2 ** 40]) {
      for (const nonce of [0, 1, 127, 128, 255, 256, 65_535, Number.MAX_SAFE_INTEGER]) {
        expect(hashAuthorization7702({ chainId: BigInt(chainId), delegate, nonce: BigInt(nonce) })).toBe(
          hashAuthorization({ chainId, address: delegate, nonce }),
        );
      }
    }
  });

  it('accepts a mixed-case delegate and refuses out-of-range values', () => {
    const mixed = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as Address;
    expect(hashAuthorization7702({ chainId: 1n, delegate: mixed, nonce: 0n })).toBe(
      hashAuthorization7702({ chainId: 1n, delegate: mixed.toLowerCase() as Address, nonce: 0n }),
    );
    expect(isBaseError(errorOf(() => hashAuthorization7702({ chainId: 1n, delegate, nonce: (1n << 64n) - 1n })), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashAuthorization7702({ chainId: -1n, delegate, nonce: 0n })), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashAuthorization7702({ chainId: 1n, delegate: '0x66' as Address, nonce: 0n })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(
      true,
    );
  });
});

describe('signing and recovery', () => {
  it('signs to the wire form, which recovers to the authority (and viem agrees)', async () => {
    const signed = await signAuthorization7702(account, { chainId: 10143n, delegate, nonce: 5n });
    expect(signed.authority).toBe(authority);
    expect(signed.chainId).toBe(10143n);
    expect(signed.delegate).toBe(delegate);
    expect(signed.nonce).toBe(5n);
    expect([0, 1]).toContain(signed.yParity);
    expect(signed.r).toMatch(/^0x[0-9a-f]{64}$/);
    expect(signed.s).toMatch(/^0x[0-9a-f]{64}$/);
    expect(BigInt(signed.s) <= SECP256K1_N >> 1n).toBe(true);
    expect(await recoverAuthorization7702Authority(signed)).toBe(authority);
    const viaViem = await recoverAuthorizationAddress({
      authorization: { address: delegate, chainId: 10143, nonce: 5, r: signed.r, s: signed.s, yParity: signed.yParity },
    });
    expect(viaViem.toLowerCase()).toBe(authority);
    await expect(verifyAuthorization7702(signed)).resolves.toBeUndefined();
  });

  it.each([
    ['chainId', { chainId: 143n }],
    ['nonce', { nonce: 6n }],
    ['delegate', { delegate: '0x6666666666666666666666666666666666666667' as Address }],
    ['authority', { authority: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' as Address }],
  ] as const)('a tampered %s fails verification', async (_field, change) => {
    const signed = await signAuthorization7702(account, { chainId: 10143n, delegate, nonce: 5n });
    const error = await rejectionOf(verifyAuthorization7702({ ...signed, ...change }));
    expect(isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });

  it('refuses high-s, short r or s and a yParity other than 0 or 1', async () => {
    const signed = await signAuthorization7702(account, { chainId: 10143n, delegate, nonce: 5n });
    const highS = `0x${(SECP256K1_N - BigInt(signed.s)).toString(16).padStart(64, '0')}` as Hex;
    const twin = { ...signed, s: highS, yParity: 1 - signed.yParity };
    for (const bad of [twin, { ...signed, r: `0x${signed.r.slice(4)}` as Hex }, { ...signed, s: `0x${signed.s.slice(4)}` as Hex }, { ...signed, yParity: 27 }]) {
      expect(isBaseError(await rejectionOf(recoverAuthorization7702Authority(bad)), 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
    }
  });

  it('normalises a remote signer that reports only v and unpadded r, s', async () => {
    const remote: AuthorizationSigner = {
      address: account.address,
      signAuthorization: async (request) => {
        const { yParity, ...rest } = await account.signAuthorization(request);
        return { ...rest, r: `0x${BigInt(rest.r).toString(16)}` as Hex, s: `0x${BigInt(rest.s).toString(16)}` as Hex, v: yParity === 0 ? 27n : 28n } as never;
      },
    };
    const signed = await signAuthorization7702(remote, { chainId: 10143n, delegate, nonce: 5n });
    expect(signed).toEqual(await signAuthorization7702(account, { chainId: 10143n, delegate, nonce: 5n }));
  });

  it('refuses a signer whose signature is for something else', async () => {
    const wrong: AuthorizationSigner = {
      address: account.address,
      signAuthorization: (request) => account.signAuthorization({ ...request, nonce: request.nonce + 1 }),
    };
    const error = await rejectionOf(signAuthorization7702(wrong, { chainId: 10143n, delegate, nonce: 5n }));
    expect(isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });

  it('refuses a nonce that a viem signer cannot carry', async () => {
    const error = await rejectionOf(signAuthorization7702(account, { chainId: 1n, delegate, nonce: 1n << 60n }));
    expect(isBaseError(error, 'UNITS_OUT_OF_RANGE')).toBe(true);
  });
});

