import { describe, expect, it } from 'vitest';
import { BaseError } from '../../src/core/base-error.ts';
import { createLogger, formatPrettyLine } from '../../src/core/logger.ts';

const KEY = `0x${'4c0883a69102937d6231471b5dbb6204fe512961708279f2e3e8a5d4b8e3e1a3'}`;
const JWT = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJ3YWxsZXQiOiIweDAwMDEiLCJleHAiOjF9.c2lnbmF0dXJlLW9mLXRoZS10ZXN0LWp3dA';
const TX_HASH = `0x${'7a'.repeat(32)}`;
const SECRETS = [KEY, KEY.slice(2), JWT, 'hunter2-password'];

function capture(params: { pretty?: boolean; level?: 'debug' | 'info' } = {}) {
  const lines: string[] = [];
  const logger = createLogger({ ...params, destination: { write: (line: string) => lines.push(line) }, clock: { now: () => 0 } });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

function expectClean(lines: readonly string[]): void {
  const all = lines.join('');
  for (const secret of SECRETS) expect(all).not.toContain(secret);
}

describe('createLogger: redaction', () => {
  it('redacts secret-like keys at any depth and key/JWT shapes in any string', () => {
    const { logger, lines, records } = capture();
    logger.info(
      {
        wallet: { walletPrivateKey: KEY, owner: '0x0000000000000000000000000000000000000001' },
        request: { headers: { Authorization: `Bearer ${JWT}` } },
        deep: [{ a: { b: { password: 'hunter2-password' } } }],
        note: `retrying with ${JWT}`,
        txHash: TX_HASH,
      },
      `signed in as ${KEY}`,
    );
    expectClean(lines);
    expect(records()[0]).toEqual({
      level: 30,
      time: 0,
      wallet: { walletPrivateKey: '[redacted]', owner: '0x0000000000000000000000000000000000000001' },
      request: { headers: { Authorization: '[redacted]' } },
      deep: [{ a: { b: { password: '[redacted]' } } }],
      note: 'retrying with [redacted]',
      txHash: TX_HASH,
      msg: 'signed in as [redacted]',
    });
  });

  it('redacts format arguments', () => {
    const { logger, lines, records } = capture();
    logger.warn('key %s token %o', KEY, { accessToken: JWT, n: 1 });
    expectClean(lines);
    expect(records()[0]!['msg']).toBe('key [redacted] token {"accessToken":"[redacted]","n":1}');
  });

  it('redacts errors: message, stack and details', () => {
    const { logger, lines, records } = capture();
    logger.error(new BaseError('CONFIG_INVALID', `bad key ${KEY}`, { details: { jwt: JWT, file: 'a.yaml' } }));
    logger.error({ err: new Error(`boom ${JWT}`) }, 'request failed');
    expectClean(lines);
    const [first, second] = records();
    expect(first!['msg']).toBe('bad key [redacted]');
    expect(first!['err']).toMatchObject({ type: 'BaseError', code: 'CONFIG_INVALID', details: { jwt: '[redacted]', file: 'a.yaml' } });
    expect(second!['msg']).toBe('request failed');
    expect(second!['err']).toMatchObject({ type: 'Error', message: 'boom [redacted]' });
  });

  it('writes error stacks at debug level only (a warning says what went wrong, not where in the source)', () => {
    const { logger, records, lines } = capture({ level: 'debug' });
    const error = new Error(`boom ${JWT}`, { cause: new Error('inner') });
    logger.warn({ err: error }, 'warned');
    logger.error(error);
    logger.debug({ err: error }, 'debugged');
    const [warned, errored, debugged] = records();
    for (const record of [warned, errored]) {
      expect(JSON.stringify(record)).not.toContain('"stack"');
      expect(record!['err']).toMatchObject({ type: 'Error', message: 'boom [redacted]', cause: { message: 'inner' } });
    }
    expect((debugged!['err'] as { stack: string }).stack).toMatch(/^Error: boom \[redacted\]\n {4}at /);
    expectClean(lines);
  });

  it('child loggers inherit redaction, bindings included', () => {
    const { logger, lines, records } = capture();
    const child = logger.child({ component: 'relay', sessionToken: JWT });
    const grandchild = child.child({ apiKey: 'hunter2-password', market: 'MON_USDC' });
    grandchild.info({ privateKey: KEY }, 'connected');
    expectClean(lines);
    expect(records()[0]).toEqual({
      level: 30,
      time: 0,
      component: 'relay',
      sessionToken: '[redacted]',
      apiKey: '[redacted]',
      market: 'MON_USDC',
      privateKey: '[redacted]',
      msg: 'connected',
    });
  });

  it('honours the level', () => {
    const { logger, lines } = capture({ level: 'info' });
    logger.debug('hidden');
    logger.info('shown');
    expect(lines).toHaveLength(1);
  });
});

describe('createLogger: pretty', () => {
  it('writes one plain-text line per record, redacted', () => {
    const { logger, lines } = capture({ pretty: true });
    logger.info({ market: 'MON_USDC', spread: '0.0002', jwt: JWT, note: 'a b' }, 'quoting');
    expectClean(lines);
    expect(lines).toEqual(['00:00:00.000 INFO  quoting market=MON_USDC spread=0.0002 jwt=[redacted] note="a b"\n']);
  });

  it('formats a JSON line and passes other text through', () => {
    expect(formatPrettyLine('{"level":50,"time":61000,"msg":"down","code":"X"}\n')).toBe('00:01:01.000 ERROR down code=X');
    expect(formatPrettyLine('not json\n')).toBe('not json');
  });
});
