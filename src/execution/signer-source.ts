/**
 * The trading wallet's signer: a viem local account made from a key in an environment variable
 * (`privateKeyEnv`), from the first line of a key file (`privateKeyFile`), or a fresh key
 * (`ephemeral`, sim only). Any viem LocalAccount, e.g. a remote signer made with viem's `toAccount`,
 * can be passed instead of a source.
 *
 * The key never leaves this module: errors name the variable or the file, never the key (nor a
 * viem error that could quote it); the account object holds it only inside viem's closures.
 * A key file must be readable by its owner only, as ssh insists for its keys.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { Hex } from 'viem';
import { generatePrivateKey, type LocalAccount } from 'viem/accounts';
import { localAccount } from '../protocol/local-account.ts';
import { BaseError } from '../core/base-error.ts';
import type { RandomSource } from '../core/random.ts';
import type { Env } from '../config/env-interpolation.ts';
import type { WalletSource } from '../config/run-config.ts';
import type { Address } from '../protocol/encoding.ts';
import { SECP256K1_N } from '../protocol/secp256k1-order.ts';

const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** A private key with or without its 0x, in any case: never a file name. */
const KEY_SHAPED = /^(?:0[xX])?[0-9a-fA-F]{64}$/;

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

/** The file-system calls the loader needs (a seam for tests). */
export interface SignerFs {
  stat(path: string): Promise<{ readonly mode: number; isFile(): boolean }>;
  readFile(path: string): Promise<string>;
}

const nodeFs: SignerFs = {
  stat: (path) => stat(path),
  readFile: (path) => readFile(path, 'utf8'),
};

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

/** `~/x` -> the home directory; relative paths against `cwd`. */
export function resolveKeyPath(path: string, cwd: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A key text -> an account; `where` names the variable or file. The key is never quoted. */
function accountFromKey(text: string, where: string): LocalAccount {
  const key = text.trim();
  if (!KEY_PATTERN.test(key)) {
    const shape = key.length === 0 ? 'it is empty' : /^[0-9a-fA-F]{64}$/.test(key) ? 'the 0x prefix is missing' : `it has ${key.length} characters`;
    throw new BaseError('CONFIG_WALLET_KEY_INVALID', `${where} does not hold a private key: expected 0x followed by 64 hex digits (${shape})`, {
      details: { where },
    });
  }
  const scalar = BigInt(key);
  if (scalar === 0n || scalar >= SECP256K1_N) {
    throw new BaseError('CONFIG_WALLET_KEY_INVALID', `${where} does not hold a valid secp256k1 private key (zero or not below the group order)`, {
      details: { where },
    });
  }
  try {
    return localAccount(key.toLowerCase() as `0x${string}`);
  } catch {
    // viem's message could quote the key: never pass it on.
    throw new BaseError('CONFIG_WALLET_KEY_INVALID', `${where} does not hold a valid secp256k1 private key`, { details: { where } });
  }
}

function fromEnv(name: string, env: Env): LocalAccount {
  const where = `environment variable ${name}`;
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new BaseError('CONFIG_WALLET_KEY_MISSING', `${where} is ${value === undefined ? 'not set' : 'empty'}: set it to the trading wallet's private key (0x and 64 hex digits)`, {
      details: { env: name },
    });
  }
  return accountFromKey(value, where);
}

async function fromFile(path: string, params: LoadSignerParameters): Promise<{ account: LocalAccount; path: string }> {
  if (KEY_SHAPED.test(path.trim())) {
    // A key pasted where its file's path belongs: said so, never quoted (not even as a missing file's name).
    throw new BaseError('CONFIG_WALLET_KEY_INVALID', 'the key file path is a private key itself: give the path of a file that holds the key (readable by its owner only), never the key', {
      details: {},
    });
  }
  const fs = params.fs ?? nodeFs;
  const full = resolveKeyPath(path, params.cwd ?? process.cwd());
  const where = `key file ${full}`;
  let info: Awaited<ReturnType<SignerFs['stat']>>;
  try {
    info = await fs.stat(full);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${String(code ?? 'error')})`;
    throw new BaseError('CONFIG_WALLET_KEY_MISSING', `${where} ${why}`, { details: { file: full } });
  }
  if (!info.isFile()) {
    throw new BaseError('CONFIG_WALLET_KEY_INSECURE', `${where} is not a regular file`, { details: { file: full } });
  }
  const skip = params.skipModeCheck ?? process.platform === 'win32';
  const mode = info.mode & 0o777;
  if (!skip && (mode & 0o077) !== 0) {
    const octal = mode.toString(8).padStart(4, '0');
    throw new BaseError(
      'CONFIG_WALLET_KEY_INSECURE',
      `${where} has permissions ${octal}, too open: a private key must be readable by its owner only (chmod 600 ${full})`,
      { details: { file: full, mode: octal } },
    );
  }
  let text: string;
  try {
    text = await fs.readFile(full);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new BaseError('CONFIG_WALLET_KEY_MISSING', `${where} cannot be read (${String(code ?? 'error')})`, { details: { file: full } });
  }
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  return { account: accountFromKey(firstLine, where), path: full };
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
      return signer(fromEnv(source.name, params.env), `environment variable ${source.name}`, 'env');
    case 'file': {
      const { account, path } = await fromFile(source.path, params);
      return signer(account, `key file ${path}`, 'file');
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
