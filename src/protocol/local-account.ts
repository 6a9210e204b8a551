/**
 * A signer that holds its private key (viem's local account), whose raw digest signatures are
 * remembered with their address (`rememberSignature`), so an in-process venue checking them skips
 * the recovery's curve arithmetic. What it signs and how are viem's, unchanged.
 */
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Hex } from './encoding.ts';
import { rememberSignature } from './recover-address.ts';

/**
 * @example const account = localAccount('0x…32 bytes…'); await account.sign({ hash: digest })
 */
export function localAccount(privateKey: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(privateKey);
  const { sign } = account;
  return {
    ...account,
    async sign(parameters) {
      const signature = await sign(parameters);
      rememberSignature(parameters.hash, signature, account.address);
      return signature;
    },
  };
}
