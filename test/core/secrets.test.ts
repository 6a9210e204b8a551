import { describe, expect, it } from 'vitest';
import { BaseError } from '../../src/core/base-error.ts';
import { isSecretKey, redactSecrets, REDACTED, scrubKnownSecrets, scrubSecretText } from '../../src/core/secrets.ts';

const KEY = `0x${'c0ffee'.repeat(10)}abcd`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDEifQ.Zm9vYmFyLXNpZ25hdHVyZQ';

describe('isSecretKey', () => {
  it('matches secret-like fragments in any case and position', () => {
    for (const key of ['privateKey', 'walletPrivateKey', 'PRIVATE_KEY'.replace('_', ''), 'apiKey', 'key', 'clientSecret', 'accessToken', 'jwt', 'dbPassword', 'MNEMONIC', 'Authorization', 'cookie']) {
      expect(isSecretKey(key), key).toBe(true);
    }
  });

  it('leaves public keys alone, including venue token fields', () => {
    for (const key of ['owner', 'wallet', 'price', 'tokens', 'baseToken', 'quoteToken', 'tokenAddress', 'txHash', 'symbol']) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});

describe('scrubSecretText', () => {
  it('hides private keys (with or without 0x), JWTs and Bearer credentials', () => {
    expect(scrubSecretText(`key ${KEY} end`)).toBe(`key ${REDACTED} end`);
    expect(scrubSecretText(`raw ${KEY.slice(2)}`)).toBe(`raw ${REDACTED}`);
    expect(scrubSecretText(`token=${JWT};`)).toBe(`token=${REDACTED};`);
    expect(scrubSecretText('Authorization: Bearer abc.def-ghi')).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it('keeps addresses, signatures, longer hex data, versions and host names', () => {
    const address = `0x${'ab'.repeat(20)}`;
    const signature = `0x${'ab'.repeat(65)}`;
    for (const text of [address, signature, 'relay.testnet.kuru.io', 'v1.2.3', 'api.kuru.io']) expect(scrubSecretText(text)).toBe(text);
  });

  it('keeps 32-byte values when asked (hash-like keys)', () => {
    expect(scrubSecretText(KEY, { keepHex32: true })).toBe(KEY);
  });
});

describe('scrubKnownSecrets', () => {
  it('removes each known value, ignoring very short ones', () => {
    expect(scrubKnownSecrets('pw hunter22 and a', ['hunter22', 'a'])).toBe(`pw ${REDACTED} and a`);
  });
});

describe('redactSecrets', () => {
  it('redacts by key at any depth and by pattern in any string, keeping hashes', () => {
    const input = {
      wallet: { walletPrivateKey: KEY, owner: `0x${'1'.repeat(40)}` },
      headers: { Authorization: `Bearer ${JWT}` },
      list: [{ nested: { deeper: { mnemonic: 'word '.repeat(12) } } }, `see ${JWT}`],
      txHash: KEY,
      clientOrderId: KEY,
      note: `k=${KEY}`,
      amount: 10n ** 30n,
    };
    expect(redactSecrets(input)).toEqual({
      wallet: { walletPrivateKey: REDACTED, owner: `0x${'1'.repeat(40)}` },
      headers: { Authorization: REDACTED },
      list: [{ nested: { deeper: { mnemonic: REDACTED } } }, `see ${REDACTED}`],
      txHash: KEY,
      clientOrderId: KEY,
      note: `k=${REDACTED}`,
      amount: '1000000000000000000000000000000',
    });
  });

  it('turns errors into plain objects with their fields redacted', () => {
    const error = new BaseError('CONFIG_INVALID', `bad ${KEY}`, { details: { password: 'p4ssw0rd!', file: 'a.yaml' } });
    const out = redactSecrets(error) as Record<string, unknown>;
    expect(out['type']).toBe('BaseError');
    expect(out['message']).toBe(`bad ${REDACTED}`);
    expect(out['code']).toBe('CONFIG_INVALID');
    expect(out['details']).toEqual({ password: REDACTED, file: 'a.yaml' });
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it('survives cycles and uses toJSON', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a['self'] = a;
    expect(redactSecrets(a)).toEqual({ name: 'a', self: '[Circular]' });
    expect(redactSecrets({ holder: { toJSON: () => '[redacted JWT]' } })).toEqual({ holder: '[redacted JWT]' });
  });
});
