import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BoundJwt, JwtStore } from '../../src/protocol/jwt-store.ts';
import { BaseError } from '../../src/core/base-error.ts';

const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const token = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDcwIn0.c2lnbmF0dXJl';

describe('JwtStore', () => {
  it('keeps one token per (network, wallet), case-insensitive on the wallet', () => {
    const store = new JwtStore();
    store.set(new BoundJwt({ token, network: 'testnet', wallet, expiresAtMs: 10_000 }));
    expect(store.get('testnet', wallet.toLowerCase() as `0x${string}`, 0)?.reveal('testnet')).toBe(token);
    expect(store.get('mainnet', wallet, 0)).toBeUndefined();
    expect(store.get('sim', wallet, 0)).toBeUndefined();
  });

  it('never reveals a token for another network', () => {
    const jwt = new BoundJwt({ token, network: 'testnet', wallet, expiresAtMs: 10_000 });
    expect(() => jwt.reveal('mainnet')).toThrowError(BaseError);
    expect(() => jwt.reveal('mainnet')).toThrowError(expect.objectContaining({ code: 'JWT_NETWORK_MISMATCH' }));
  });

  it('treats a token as gone once it expires within the margin', () => {
    const store = new JwtStore();
    store.set(new BoundJwt({ token, network: 'sim', wallet, expiresAtMs: 10_000 }));
    expect(store.get('sim', wallet, 9_999)).toBeDefined();
    expect(store.get('sim', wallet, 10_000)).toBeUndefined();
    expect(store.get('sim', wallet, 5_000, 5_000)).toBeUndefined();
    store.delete('sim', wallet);
    expect(store.get('sim', wallet, 0)).toBeUndefined();
  });

  it('never prints the token', () => {
    const jwt = new BoundJwt({ token, network: 'testnet', wallet, expiresAtMs: 1 });
    for (const text of [String(jwt), `${jwt}`, JSON.stringify({ jwt }), inspect({ jwt }, { depth: 5 })]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain('c2lnbmF0dXJl');
    }
  });
});
