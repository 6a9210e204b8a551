import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatConfigIssue } from '../../src/config/config-issue.ts';
import { loadConfigOrThrow, validateYamlSource } from '../../src/config/load-config.ts';
import { runConfigSchema } from '../../src/config/run-config.ts';
import { parseYamlSource } from '../../src/config/yaml-source.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';

const FAKE_KEY = `0x${'4c0883a69102937d6231471b5dbb6204fe512961708279f2e3e8a5d4b8e3e1a3'}`;
const FAKE_JWT = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJ3YWxsZXQiOiIweDAwMDEiLCJleHAiOjF9.c2lnbmF0dXJlLW9mLXRoZS10ZXN0LWp3dA';
const FAKE_PASSWORD = 'correct-horse-battery-staple';
const env = { FAKE_KEY, FAKE_JWT, FAKE_PASSWORD };

// Secrets reach the file through ${...} in places that are invalid, valid, and next to other mistakes.
const RUN_FILE = `network: "\${FAKE_PASSWORD}"
venueUrl: "http://127.0.0.1:1/\${FAKE_JWT}"
wallet:
  privateKeyEnv: "\${FAKE_KEY}"
markets: [MON_USDC]
strategies:
  - name: mm
    module: strategies/market-maker.ts
    markets: [MON_USDC]
    params:
      apiToken: "\${FAKE_JWT}"
      note: "key=\${FAKE_KEY}"
risk:
  maxPosition: "\${FAKE_KEY}"
  maxOrderSize: "1"
  maxNotional: "1"
logging:
  level: "\${FAKE_JWT}"
colour: blue
`;

function expectNoSecret(text: string): void {
  for (const secret of [FAKE_KEY, FAKE_KEY.slice(2), FAKE_JWT, FAKE_PASSWORD]) expect(text).not.toContain(secret);
}

describe('secrets never appear in config errors', () => {
  it('clobbot validate reports every problem without printing an interpolated secret', async () => {
    const tmp = tempDir();
    try {
      const file = tmp.write('run.yaml', RUN_FILE);
      const result = await runCli(['validate', file], env);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `${file}:1:10 network: expected one of mainnet, testnet, sim`,
        `${file}:4:18 wallet.privateKeyEnv: this is a key, not a variable name: never write a private key in the run file: set privateKeyEnv to the NAME of an environment variable that holds it, or privateKeyFile to a file that holds it`,
        `${file}:14:16 risk.maxPosition: expected a non-negative decimal amount such as "1500.25", got a string`,
        `${file}:18:10 logging.level: expected one of trace, debug, info, warn, error, fatal, silent`,
        `${file}:19:1 colour: unknown key (allowed here: network, allowMainnet, venueUrl, simConfig, hosts, tradingWalletDomainVersion, wallet, account, markets, strategies, risk, engine, logging, metrics, duration, virtual)`,
        `${file}: invalid run file (5 problems)`,
      ]);
      expectNoSecret(result.stdout + result.stderr);
    } finally {
      tmp.remove();
    }
  });

  it('the thrown error carries no secret in its message or details', async () => {
    const tmp = tempDir();
    try {
      const file = tmp.write('run.yaml', RUN_FILE);
      const error = await loadConfigOrThrow(file, runConfigSchema, { env }).then(
        () => undefined,
        (thrown: unknown) => thrown as Error & { code: string; details: unknown },
      );
      expect(error?.code).toBe('CONFIG_INVALID');
      expectNoSecret(String(error?.message));
      expectNoSecret(JSON.stringify(error?.details));
      expectNoSecret(JSON.stringify(error));
    } finally {
      tmp.remove();
    }
  });

  it('scrubs secrets even from a schema message that repeats the value', () => {
    const text = 'params:\n  apiSecret: plain-text-secret-value\n  token: "${FAKE_PASSWORD}"\n  rate: "${FAKE_JWT}"\n';
    const parsed = parseYamlSource(text, { file: 'p.yaml', env });
    if (!parsed.ok) throw new Error('parse failed');
    // A careless strategy author's schema that echoes what it got.
    const echo = z.string().refine(() => false, { error: (issue) => `bad value ${String(issue.input)}` });
    const schema = z.strictObject({ apiSecret: echo, token: echo, rate: echo });
    const result = validateYamlSource(parsed.source, schema, ['params']);
    if (result.ok) throw new Error('expected issues');
    const lines = result.issues.map(formatConfigIssue);
    expect(lines).toEqual([
      'p.yaml:2:14 params.apiSecret: bad value [redacted]',
      'p.yaml:3:10 params.token: bad value [redacted]',
      'p.yaml:4:9 params.rate: bad value [redacted]',
    ]);
    expect(lines.join('\n')).not.toContain('plain-text-secret-value');
    expectNoSecret(lines.join('\n'));
  });

  it('never prints a private key written inline in the file, even in a YAML syntax error', async () => {
    const tmp = tempDir();
    try {
      const file = tmp.write('bad.yaml', `wallet:\n  privateKey: ${FAKE_KEY}\n   oops: [\n`);
      const result = await runCli(['validate', file], {});
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/bad\.yaml:\d+:\d+: YAML syntax/);
      expectNoSecret(result.stdout + result.stderr);
    } finally {
      tmp.remove();
    }
  });
});
