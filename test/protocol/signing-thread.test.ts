/**
 * The signing thread (src/protocol/signing-thread.ts) gives viem's signature, byte for byte, for
 * any key and digest; a key the curve refuses gets a typed error and leaves the thread working;
 * a job begun and never finished does not block the next one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign } from 'viem/accounts';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { beginLocalSignature, localAccount } from '../../src/protocol/local-account.ts';
import { beginDigestSignature } from '../../src/protocol/signing-thread.ts';
import { SECP256K1_N } from '../../src/protocol/secp256k1-order.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Hex);
const privateKey = hex32.filter((key) => BigInt(key) > 0n && BigInt(key) < SECP256K1_N);

describe('the signing thread', () => {
  it("signs as viem's sign does, for any key and digest", async () => {
    await fc.assert(
      fc.asyncProperty(privateKey, hex32, async (key, digest) => {
        const pending = beginDigestSignature(key, digest);
        expect(pending, 'the thread is available').toBeDefined();
        expect(pending!.finish()).toBe(await sign({ hash: digest, privateKey: key, to: 'hex' }));
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('refuses a key out of range with a typed error, and signs the next job', async () => {
    const digest = `0x${'ab'.repeat(32)}` as Hex;
    for (const bad of [`0x${'00'.repeat(32)}`, `0x${SECP256K1_N.toString(16)}`] as Hex[]) {
      let error: unknown;
      try {
        beginDigestSignature(bad, digest)!.finish();
      } catch (caught) {
        error = caught;
      }
      expect(isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
      expect(String((error as Error).message)).not.toContain(bad.slice(2));
    }
    const key = `0x${'b2'.repeat(32)}` as Hex;
    expect(beginDigestSignature(key, digest)!.finish()).toBe(await sign({ hash: digest, privateKey: key, to: 'hex' }));
  });

  it('waits for a job left unfinished before the next, whose result is its own', async () => {
    const key = `0x${'c3'.repeat(32)}` as Hex;
    const first = beginDigestSignature(key, `0x${'01'.repeat(32)}`)!;
    const second = beginDigestSignature(key, `0x${'02'.repeat(32)}`)!;
    expect(() => first.finish()).toThrow(/another job/);
    expect(second.finish()).toBe(await sign({ hash: `0x${'02'.repeat(32)}`, privateKey: key, to: 'hex' }));
  });

  it("signs only for accounts made by localAccount, with the account's own signature", async () => {
    const account = localAccount(`0x${'d4'.repeat(32)}`);
    const digest = `0x${'5e'.repeat(32)}` as Hex;
    expect(beginLocalSignature(account, digest)!.finish()).toBe(await account.sign({ hash: digest }));
    expect(beginLocalSignature({ ...account }, digest)).toBeUndefined();
  });
});
