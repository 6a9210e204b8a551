import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { redactSecrets } from '../../src/core/secrets.ts';
import { loadSigner } from '../../src/execution/signer-source.ts';
import { recoverPersonalSignSigner } from '../../src/protocol/personal-sign.ts';
import { WALLET, lower } from '../sim/relay-harness.ts';

const KEY = `0x${'b2'.repeat(32)}`;
const posix = process.platform !== 'win32';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function keyFile(text: string, mode: number): string {
  dir ??= mkdtempSync(join(tmpdir(), 'clobbot-key-'));
  const path = join(dir, `key-${mode.toString(8)}`);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/** Runs `load` and returns the BaseError it throws, checking the key is nowhere in it. */
async function failure(load: () => Promise<unknown>, secret = KEY): Promise<{ code: string; message: string }> {
  try {
    await load();
  } catch (error) {
    if (!isBaseError(error)) throw error;
    const shown = `${error.message} ${JSON.stringify(error.details)} ${JSON.stringify(redactSecrets(error))} ${String(error.cause ?? '')}`;
    expect(shown).not.toContain(secret.slice(2, 40));
    return { code: error.code, message: error.message };
  }
  throw new Error('expected a failure');
}

describe('loadSigner', () => {
  it('loads the key from an environment variable', async () => {
    const signer = await loadSigner({ source: { kind: 'env', name: 'CLOBBOT_KEY' }, network: 'testnet', env: { CLOBBOT_KEY: `${KEY}\n` } });
    expect(signer.address).toBe(lower(WALLET));
    expect(signer.origin).toBe('environment variable CLOBBOT_KEY');
    expect(JSON.stringify(redactSecrets(signer))).not.toContain(KEY.slice(2));
    const signature = await signer.account.signMessage({ message: 'hi' });
    expect(await recoverPersonalSignSigner({ message: 'hi', signature })).toBe(lower(WALLET));
  });

  it('names a missing or empty variable, never guessing', async () => {
    expect(await failure(() => loadSigner({ source: { kind: 'env', name: 'CLOBBOT_KEY' }, network: 'sim', env: {} }))).toEqual({
      code: 'CONFIG_WALLET_KEY_MISSING',
      message: "environment variable CLOBBOT_KEY is not set: set it to the trading wallet's private key (0x and 64 hex digits)",
    });
    expect((await failure(() => loadSigner({ source: { kind: 'env', name: 'K' }, network: 'sim', env: { K: '  ' } }))).message).toMatch(/K is empty/);
  });

  it('refuses a malformed key without quoting it', async () => {
    const cases: [string, RegExp][] = [
      [KEY.slice(0, 65), /expected 0x followed by 64 hex digits \(it has 65 characters\)/],
      [KEY.slice(2), /the 0x prefix is missing/],
      [`${KEY.slice(0, 64)}zz`, /it has 66 characters/],
      [`0x${'00'.repeat(32)}`, /does not hold a valid secp256k1 private key/],
      [`0x${'ff'.repeat(32)}`, /does not hold a valid secp256k1 private key/],
    ];
    for (const [value, message] of cases) {
      const result = await failure(() => loadSigner({ source: { kind: 'env', name: 'K' }, network: 'sim', env: { K: value } }), value.startsWith('0x') ? value : `0x${value}`);
      expect(result.code).toBe('CONFIG_WALLET_KEY_INVALID');
      expect(result.message).toMatch(message);
      expect(result.message).toMatch(/^environment variable K does not hold/);
    }
  });

  it.runIf(posix)('reads the first line of a key file readable by its owner only', async () => {
    const path = keyFile(`${KEY}\n# the trading wallet\n`, 0o600);
    const signer = await loadSigner({ source: { kind: 'file', path }, network: 'sim', env: {} });
    expect(signer.address).toBe(lower(WALLET));
    expect(signer.origin).toBe(`key file ${path}`);
    const readOnly = keyFile(KEY, 0o400);
    expect((await loadSigner({ source: { kind: 'file', path: readOnly }, network: 'sim', env: {} })).address).toBe(lower(WALLET));
  });

  it.runIf(posix)('refuses a key file that its group or others can read, like ssh', async () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602]) {
      const path = keyFile(KEY, mode);
      const result = await failure(() => loadSigner({ source: { kind: 'file', path }, network: 'sim', env: {} }));
      expect(result.code).toBe('CONFIG_WALLET_KEY_INSECURE');
      expect(result.message).toBe(
        `key file ${path} has permissions 0${mode.toString(8)}, too open: a private key must be readable by its owner only (chmod 600 ${path})`,
      );
    }
  });

  it.runIf(posix)('names a missing file, a directory and a malformed file', async () => {
    dir ??= mkdtempSync(join(tmpdir(), 'clobbot-key-'));
    const missing = join(dir, 'nope');
    expect(await failure(() => loadSigner({ source: { kind: 'file', path: missing }, network: 'sim', env: {} }))).toEqual({
      code: 'CONFIG_WALLET_KEY_MISSING',
      message: `key file ${missing} does not exist`,
    });
    const folder = join(dir, 'folder');
    mkdirSync(folder, { mode: 0o700 });
    expect((await failure(() => loadSigner({ source: { kind: 'file', path: folder }, network: 'sim', env: {} }))).code).toBe('CONFIG_WALLET_KEY_INSECURE');
    const bad = keyFile(`${KEY.slice(0, 60)}\n${KEY}\n`, 0o600);
    const result = await failure(() => loadSigner({ source: { kind: 'file', path: bad }, network: 'sim', env: {} }));
    expect(result).toEqual({ code: 'CONFIG_WALLET_KEY_INVALID', message: `key file ${bad} does not hold a private key: expected 0x followed by 64 hex digits (it has 60 characters)` });
  });

  it('resolves relative paths against cwd', async () => {
    dir ??= mkdtempSync(join(tmpdir(), 'clobbot-key-'));
    writeFileSync(join(dir, 'k'), KEY, { mode: 0o600 });
    const signer = await loadSigner({ source: { kind: 'file', path: 'k' }, network: 'sim', env: {}, cwd: dir, skipModeCheck: !posix });
    expect(signer.address).toBe(lower(WALLET));
  });

  it('makes a fresh key for an ephemeral wallet on the sim only', async () => {
    const a = await loadSigner({ source: { kind: 'ephemeral' }, network: 'sim', env: {} });
    const b = await loadSigner({ source: { kind: 'ephemeral' }, network: 'sim', env: {} });
    expect(a.address).not.toBe(b.address);
    expect(a.kind).toBe('ephemeral');
    const result = await failure(() => loadSigner({ source: { kind: 'ephemeral' }, network: 'testnet', env: {} }));
    expect(result).toEqual({ code: 'CONFIG_INVALID', message: 'an ephemeral wallet exists on network sim only, not testnet' });
  });

  it('takes any viem account, e.g. a remote signer', async () => {
    const remote = toAccount({
      address: WALLET.address,
      signMessage: (parameters) => WALLET.signMessage(parameters),
      signTypedData: (parameters) => WALLET.signTypedData(parameters as Parameters<typeof WALLET.signTypedData>[0]),
      signTransaction: (transaction) => WALLET.signTransaction(transaction),
    });
    const signer = await loadSigner({ source: { kind: 'account', account: remote }, network: 'mainnet', env: {} });
    expect(signer.address).toBe(lower(WALLET));
    expect(signer.account).toBe(remote);
    expect(signer.origin).toBe('account passed in (custom)');
  });
});
