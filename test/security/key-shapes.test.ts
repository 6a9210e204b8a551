/**
 * A private key in a form the first scrubber missed: `0X` + 64 hex digits (a key upper-cased whole)
 * in a log line or an error, and a key pasted where its file's path belongs (`privateKeyFile`,
 * `--owner-key-file`), which used to come back as the name of a missing file.
 */
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { REDACTED, redactSecrets, scrubSecretText } from '../../src/core/secrets.ts';
import { loadSigner } from '../../src/execution/signer-source.ts';
import { tempDir } from '../support/cli-harness.ts';
import { hasStackTrace } from '../cli/run-harness.ts';
import { ROOT, findSecrets, keyForms, runCliProcess } from './leak-support.ts';

const KEY = generatePrivateKey();
const UPPER = `0X${KEY.slice(2).toUpperCase()}`;

describe('a key written 0X… is a key', () => {
  it('scrubbed from text, values and log lines like 0x…', () => {
    expect(scrubSecretText(`the key ${UPPER} leaked`)).toBe(`the key ${REDACTED} leaked`);
    expect(scrubSecretText(`path /keys/${UPPER}`)).toBe(`path /keys/${REDACTED}`);
    expect(redactSecrets({ note: `k=${UPPER}`, nested: [UPPER] })).toEqual({ note: `k=${REDACTED}`, nested: [REDACTED] });
    // A longer hex run (a signature) is not a key, in either case.
    const signature = `0X${'AB'.repeat(65)}`;
    expect(scrubSecretText(signature)).toBe(signature);

    let written = '';
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => (written += line) } });
    logger.info({ detail: `got ${UPPER}` }, `message with ${UPPER}`);
    logger.error(new Error(`failed for ${UPPER}`), 'an error');
    expect(written).toContain(REDACTED);
    expect(findSecrets('log', written, [keyForms('key', KEY)])).toEqual([]);
  });
});

describe('a key where its file path belongs is refused without being quoted', () => {
  it('loadSigner: CONFIG_WALLET_KEY_INVALID, the key in neither message nor details', async () => {
    for (const path of [KEY, UPPER, KEY.slice(2), ` ${KEY}\n`]) {
      const error = await loadSigner({ source: { kind: 'file', path }, network: 'sim', env: {}, cwd: '/nonexistent' }).then(
        () => undefined,
        (caught: unknown) => caught as { code: string; message: string; details: unknown },
      );
      expect(error?.code).toBe('CONFIG_WALLET_KEY_INVALID');
      expect(error?.message).toBe('the key file path is a private key itself: give the path of a file that holds the key (readable by its owner only), never the key');
      expect(findSecrets('error', `${error?.message} ${JSON.stringify(error?.details)}`, [keyForms('key', KEY)])).toEqual([]);
    }
    // A file whose name only holds hex among other things is a path like any other.
    await expect(loadSigner({ source: { kind: 'file', path: `keys/${KEY.slice(2)}` }, network: 'sim', env: {}, cwd: '/nonexistent' })).rejects.toMatchObject({
      code: 'CONFIG_WALLET_KEY_MISSING',
    });
  });

  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir()));
  afterAll(() => tmp.remove());

  it('clobbot run and clobbot account setup: exit 2, the message, no key, no stack trace', async () => {
    const file = (name: string, wallet: string) =>
      tmp.write(
        name,
        [
          'network: testnet',
          'hosts: { exchangeUrl: "http://127.0.0.1:9", userUrl: "http://127.0.0.1:9", rpcUrl: "http://127.0.0.1:9" }',
          `wallet: ${wallet}`,
          'account: { id: 7 }',
          'markets:',
          '  - { symbol: MON_USDC, address: "0x00000000000000000000000000000000000000b1", baseToken: { address: "0x00000000000000000000000000000000000000a1", symbol: MON, decimals: 18 }, quoteToken: { address: "0x00000000000000000000000000000000000000a2", symbol: USDC, decimals: 6 }, pricePrecision: 10000000, sizePrecision: 100, tickSize: 10, minSize: 100, maxSize: 1000000000, makerFeePps: 0, takerFeePps: 2000 }',
          'strategies:',
          `  - { name: mm, module: ${ROOT}strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }`,
          'risk: { maxPosition: "1000", maxOrderSize: "100", maxNotional: "100" }',
        ].join('\n'),
      );
    const env = { PATH: process.env['PATH'] ?? '', HOME: tmp.dir, TMPDIR: tmp.dir, CLOBBOT_KEY: generatePrivateKey() };
    const options = { cwd: tmp.dir, env };
    const results = await Promise.all([
      runCliProcess(['run', file('pasted.yaml', `{ privateKeyFile: "${UPPER}" }`)], options),
      runCliProcess(['account', 'setup', '--config', file('owner.yaml', '{ privateKeyEnv: CLOBBOT_KEY }'), '--owner-key-file', KEY, '--account-core', `0x${'11'.repeat(20)}`, '--delegate', `0x${'22'.repeat(20)}`], options),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe('error CONFIG_WALLET_KEY_INVALID: the key file path is a private key itself: give the path of a file that holds the key (readable by its owner only), never the key\n');
      expect(findSecrets('output', result.stdout + result.stderr, [keyForms('key', KEY)])).toEqual([]);
      expect(hasStackTrace(result.stderr)).toBe(false);
    }
  }, 60_000);
});
