/**
 * The trading wallet's signer: a viem local account made from a key in an environment variable
 * (`privateKeyEnv`), from the first line of a key file (`privateKeyFile`), or a fresh key
 * (`ephemeral`, sim only). Any viem LocalAccount, e.g. a remote signer made with viem's `toAccount`,
 * can be passed instead of a source.
 *
 * The key is read and checked by wallet-key.ts and never leaves these two modules: errors name the
 * variable or the file, never the key (nor a viem error that could quote it); the account object
 * holds it only inside viem's closures.
 */
import type { Hex } from 'viem';
import { generatePrivateKey, type LocalAccount } from 'viem/accounts';
import { localAccount } from '../protocol/local-account.ts';
import { BaseError } from '../core/base-error.ts';
import type { RandomSource } from '../core/random.ts';
import type { Env } from '../config/env-interpolation.ts';
import type { WalletSource } from '../config/run-config.ts';
import type { Address } from '../protocol/encoding.ts';
import { SECP256K1_N } from '../protocol/secp256k1-order.ts';
import { readWalletKey, type SignerFs } from './wallet-key.ts';

export { resolveKeyPath, type SignerFs } from './wallet-key.ts';

/** A source of the trading wallet's signer: the run file's `wallet`, or an account made elsewhere. */
export type SignerSource = WalletSource | { readonly kind: 'account'; readonly account: LocalAccount };

/** A loaded signer: the account, its lowercase address, and where it came from (for messages, never the key). */
export interface WalletSigner {
  readonly account: LocalAccount;
  readonly address: Address;
  /** e.g. `environment variable CLOBBOT_KEY`, `key file /home/me/.clobbot/key`, `ephemeral key`. */
  readonly origin: string;
  readonly kind: SignerSource['kind'];
}

export interface LoadSignerParameters {
  readonly source: SignerSource;
  /** The network the signer trades on: `ephemeral` exists on `sim` only. */
  readonly network: string;
  /** Where `privateKeyEnv` is looked up. */
  readonly env: Env;
  /** Relative key-file paths are resolved against it. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Skip the permission check (platforms without POSIX modes). Default: only on Windows. */
  readonly skipModeCheck?: boolean;
  readonly fs?: SignerFs;
  /** Where an ephemeral key's bytes come from: a virtual run passes a seeded source so its wallet is the same every time. Default the CSPRNG. */
  readonly random?: RandomSource;
}

/** A private key drawn from `random`: 32 bytes, redrawn until in 1..n-1. */
function drawnPrivateKey(random: RandomSource): Hex {
  for (;;) {
    // Not viem's bytesToHex: importing 'viem' loads all of it (~160 ms of every CLI start-up).
    const hex = `0x${Buffer.from(random.fill(new Uint8Array(32))).toString('hex')}` as Hex;
    const value = BigInt(hex);
    if (value > 0n && value < SECP256K1_N) return hex;
  }
}

/** A key text -> an account; `where` names the variable or file. The key is never quoted. */
function accountFromKey(key: Hex, where: string): LocalAccount {
  try {
    return localAccount(key);
  } catch {
    // viem's message could quote the key: never pass it on.
    throw new BaseError('CONFIG_WALLET_KEY_INVALID', `${where} does not hold a valid secp256k1 private key`, { details: { where } });
  }
}

function signer(account: LocalAccount, origin: string, kind: SignerSource['kind']): WalletSigner {
  return { account, address: account.address.toLowerCase() as Address, origin, kind };
}

/**
 * Loads the trading wallet's signer. Throws CONFIG_WALLET_KEY_MISSING (variable unset or empty, file
 * missing or unreadable), CONFIG_WALLET_KEY_INSECURE (file readable by group or others, or not a
 * file), CONFIG_WALLET_KEY_INVALID (not 0x + 64 hex digits, or not a valid key), CONFIG_INVALID
 * (an ephemeral key off the sim). No message ever holds the key.
 *
 * @example
 * const wallet = await loadSigner({ source: run.wallet, network: 'sim', env: process.env });
 * wallet.address // '0x…'; wallet.origin // 'environment variable CLOBBOT_KEY'
 */
export async function loadSigner(params: LoadSignerParameters): Promise<WalletSigner> {
  const { source } = params;
  switch (source.kind) {
    case 'env':
    case 'file': {
      const { key, origin } = await readWalletKey(source, params);
      return signer(accountFromKey(key, origin), origin, source.kind);
    }
    case 'ephemeral':
      if (params.network !== 'sim') {
        throw new BaseError('CONFIG_INVALID', `an ephemeral wallet exists on network sim only, not ${params.network}`, {
          details: { network: params.network },
        });
      }
      return signer(
        localAccount(params.random === undefined ? generatePrivateKey() : drawnPrivateKey(params.random)),
        'ephemeral key (sim only, made for this run)',
        'ephemeral',
      );
    case 'account':
      return signer(source.account, `account passed in (${source.account.source})`, 'account');
  }
}
