/**
 * The trading wallet's private key read from where the run file says (`privateKeyEnv`,
 * `privateKeyFile`) and checked: set, safe (a key file readable by its owner only, as ssh insists
 * for its keys), 0x and 64 hex digits, a valid secp256k1 scalar. Without viem, so that
 * `clobbot validate` checks a key without loading it (signer-source.ts makes the account).
 * Errors name the variable or the file, never the key.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { BaseError } from '../core/base-error.ts';
import type { Env } from '../config/env-interpolation.ts';
import type { Hex } from '../protocol/encoding.ts';
import { SECP256K1_N } from '../protocol/secp256k1-order.ts';

const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** A private key with or without its 0x, in any case: never a file name. */
const KEY_SHAPED = /^(?:0[xX])?[0-9a-fA-F]{64}$/;

/** The file-system calls the loader needs (a seam for tests). */
export interface SignerFs {
  stat(path: string): Promise<{ readonly mode: number; isFile(): boolean }>;
  readFile(path: string): Promise<string>;
}

const nodeFs: SignerFs = {
  stat: (path) => stat(path),
  readFile: (path) => readFile(path, 'utf8'),
};

/** Where a key is read from, and how. */
export interface WalletKeyParameters {
  /** Where `privateKeyEnv` is looked up. */
  readonly env: Env;
  /** Relative key-file paths are resolved against it. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Skip the permission check (platforms without POSIX modes). Default: only on Windows. */
  readonly skipModeCheck?: boolean;
  readonly fs?: SignerFs;
}

/** A key read and checked, and where it came from (`environment variable X`, `key file /p`). */
export interface WalletKey {
  readonly key: Hex;
  readonly origin: string;
}

/** `~/x` -> the home directory; relative paths against `cwd`. */
export function resolveKeyPath(path: string, cwd: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * Reads and checks the key of a `privateKeyEnv` or `privateKeyFile` wallet. Throws
 * CONFIG_WALLET_KEY_MISSING, CONFIG_WALLET_KEY_INSECURE or CONFIG_WALLET_KEY_INVALID; no message
 * holds the key.
 *
 * @example const { key, origin } = await readWalletKey({ kind: 'env', name: 'CLOBBOT_KEY' }, { env: process.env });
 */
export async function readWalletKey(source: { readonly kind: 'env'; readonly name: string } | { readonly kind: 'file'; readonly path: string }, params: WalletKeyParameters): Promise<WalletKey> {
  return source.kind === 'env' ? fromEnv(source.name, params.env) : fromFile(source.path, params);
}

/** A key text, checked; `where` names the variable or file. The key is never quoted. */
function checkedKey(text: string, where: string): Hex {
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
  return key.toLowerCase() as Hex;
}

function fromEnv(name: string, env: Env): WalletKey {
  const where = `environment variable ${name}`;
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new BaseError('CONFIG_WALLET_KEY_MISSING', `${where} is ${value === undefined ? 'not set' : 'empty'}: set it to the trading wallet's private key (0x and 64 hex digits)`, {
      details: { env: name },
    });
  }
  return { key: checkedKey(value, where), origin: where };
}

async function fromFile(path: string, params: WalletKeyParameters): Promise<WalletKey> {
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
  return { key: checkedKey(firstLine, where), origin: where };
}
