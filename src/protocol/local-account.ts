/**
 * A signer that holds its private key (viem's local account), whose raw digest signatures are
 * remembered with their address (`rememberSignature`), so an in-process venue checking them skips
 * the recovery's curve arithmetic. What it signs and how are viem's, unchanged; its digests may
 * also be signed on the signing thread (`beginLocalSignature`), with the same result.
 */
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Hex } from './encoding.ts';
import { rememberSignature } from './recover-address.ts';
import { beginDigestSignature, startSigningThread, type PendingSignature } from './signing-thread.ts';

/** The key of each account made here, for the signing thread: it never leaves this module and that one. */
const keys = new WeakMap<object, Hex>();

/**
 * @example const account = localAccount('0x…32 bytes…'); await account.sign({ hash: digest })
 */
export function localAccount(privateKey: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(privateKey);
  const { sign } = account;
  const local: PrivateKeyAccount = {
    ...account,
    async sign(parameters) {
      const signature = await sign(parameters);
      rememberSignature(parameters.hash, signature, account.address);
      return signature;
    },
  };
  keys.set(local, privateKey);
  // Started now, so it is ready by the first intent (until then digests are signed in place).
  startSigningThread();
  return local;
}

/** True for an account made by `localAccount` (its digests may go to the signing thread). */
export function isLocalAccount(signer: object): boolean {
  return keys.has(signer);
}

/**
 * Starts signing `digest` on the signing thread when `signer` is an account made by `localAccount`
 * and the thread is free; undefined otherwise (sign in place: `signer.sign`).
 *
 * @example
 * const pending = beginLocalSignature(account, digest);
 * journal.append(plan); // durable while the thread signs
 * const signature = pending?.finish() ?? (await account.sign({ hash: digest }));
 */
export function beginLocalSignature(signer: object, digest: Hex): PendingSignature | undefined {
  const key = keys.get(signer);
  if (key === undefined) return undefined;
  const pending = beginDigestSignature(key, digest);
  if (pending === undefined) return undefined;
  const address = (signer as PrivateKeyAccount).address;
  return {
    finish() {
      const signature = pending.finish();
      rememberSignature(digest, signature, address);
      return signature;
    },
  };
}
