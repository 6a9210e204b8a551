/**
 * The safety refusals of the real `clobbot` command (bin/clobbot.js as a process): a key file that
 * its group or others can read, mainnet without its two opt-ins (`allowMainnet: true` in the run
 * file and `--allow-mainnet`), and a run file's values from the environment (an API key in a host's
 * path) in what `clobbot account` and `clobbot run` print. Each refusal exits 2 with its message and no stack trace,
 * never prints the key, and happens before anything is sent: every host of the run files is a
 * loopback listener that counts connections, and none comes.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli-harness.ts';
import { hasStackTrace } from '../cli/run-harness.ts';
import { ROOT, findSecrets, keyForms, runCliProcess } from './leak-support.ts';

const KEY = generatePrivateKey();
const OWNER_KEY = generatePrivateKey();
const MARKET =
  '{ symbol: MON_USDC, address: "0x00000000000000000000000000000000000000b1", baseToken: { address: "0x00000000000000000000000000000000000000a1", symbol: MON, decimals: 18 }, quoteToken: { address: "0x00000000000000000000000000000000000000a2", symbol: USDC, decimals: 6 }, pricePrecision: 10000000, sizePrecision: 100, tickSize: 10, minSize: 100, maxSize: 1000000000, makerFeePps: 0, takerFeePps: 2000 }';

let tmp: ReturnType<typeof tempDir>;
let listener: Server;
let connections = 0;
let host: string;
let env: Record<string, string>;

beforeAll(async () => {
  tmp = tempDir();
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  env = { PATH: process.env['PATH'] ?? '', HOME: tmp.dir, TMPDIR: tmp.dir };
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  tmp.remove();
});

/** A key file holding `key` with `mode`. */
function keyFile(name: string, key: string, mode: number): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, `${key}\n`);
  chmodSync(path, mode);
  return path;
}

/** A run file on `network` with every host at the counting listener. */
function runFile(name: string, options: { network: string; wallet: string; allowMainnet?: boolean; hosts?: string; account?: string }): string {
  const ws = host.replace(/^http/, 'ws');
  return tmp.write(
    name,
    [
      `network: ${options.network}`,
      ...(options.allowMainnet ? ['allowMainnet: true'] : []),
      ...(options.network === 'sim'
        ? [`venueUrl: ${host}`]
        : [options.hosts ?? `hosts: { exchangeUrl: "${host}", userUrl: "${host}", relayUrl: "${host}", relayWsUrl: "${ws}/relay/ws", rpcUrl: "${host}/rpc" }`]),
      `wallet: ${options.wallet}`,
      options.account ?? 'account: { id: 7 }',
      'markets:',
      `  - ${options.network === 'sim' ? 'MON_USDC' : MARKET}`,
      'strategies:',
      `  - { name: mm, module: ${join(ROOT, 'strategies/market-maker.ts')}, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }`,
      'risk: { maxPosition: "1000", maxOrderSize: "100", maxNotional: "100" }',
      'duration: 2s',
    ].join('\n'),
  );
}

interface Refusal {
  readonly args: readonly string[];
  readonly stderr: RegExp;
  readonly env?: Record<string, string>;
}

/** Runs each case as a process: exit 2, nothing on stdout, the message, no stack trace, no key, no connection. */
async function expectRefused(cases: readonly Refusal[]): Promise<void> {
  const before = connections;
  const results = await Promise.all(cases.map((refusal) => runCliProcess(refusal.args, { cwd: tmp.dir, env: { ...env, ...refusal.env } })));
  for (const [i, result] of results.entries()) {
    const what = cases[i]!.args.join(' ');
    expect(result.code, `${what}\n${result.stderr}`).toBe(2);
    expect(result.stdout, what).toBe('');
    // The message and nothing else (a usage mistake adds the command's usage).
    expect(result.stderr.replace(/(?<=\n)usage: clobbot [\s\S]*$/, ''), what).toMatch(cases[i]!.stderr);
    expect(hasStackTrace(result.stderr), what).toBe(false);
    expect(findSecrets(what, result.stdout + result.stderr, [keyForms('key', KEY), keyForms('owner key', OWNER_KEY)])).toEqual([]);
  }
  expect(connections - before).toBe(0);
}

describe.runIf(process.platform !== 'win32')('a key file its group or others can read is refused (exit 2, no stack trace)', () => {
  it('clobbot run, account status and account setup, for the trading key and the owner key, whichever bit is set', async () => {
    const insecure = (file: string, mode: string) => new RegExp(`^error CONFIG_WALLET_KEY_INSECURE: key file ${file.replace(/[.]/g, '\\.')} has permissions ${mode}, too open: a private key must be readable by its owner only \\(chmod 600 ${file.replace(/[.]/g, '\\.')}\\)\\n$`);
    const group = keyFile('group.key', KEY, 0o640);
    const others = keyFile('others.key', KEY, 0o604);
    const writable = keyFile('writable.key', KEY, 0o620);
    const good = keyFile('good.key', KEY, 0o600);
    const owner = keyFile('owner.key', OWNER_KEY, 0o640);
    const cases: Refusal[] = [
      { args: ['run', runFile('group.yaml', { network: 'sim', wallet: `{ privateKeyFile: ${group} }` })], stderr: insecure(group, '0640') },
      { args: ['run', runFile('others.yaml', { network: 'testnet', wallet: `{ privateKeyFile: ${others} }` })], stderr: insecure(others, '0604') },
      { args: ['run', runFile('writable.yaml', { network: 'sim', wallet: `{ privateKeyFile: ${writable} }` })], stderr: insecure(writable, '0620') },
      { args: ['account', 'status', '--config', runFile('status.yaml', { network: 'testnet', wallet: `{ privateKeyFile: ${group} }` })], stderr: insecure(group, '0640') },
      {
        args: ['account', 'setup', '--config', runFile('setup.yaml', { network: 'testnet', wallet: `{ privateKeyFile: ${good} }` }), '--owner-key-file', owner, '--account-core', `0x${'11'.repeat(20)}`, '--delegate', `0x${'22'.repeat(20)}`],
        stderr: insecure(owner, '0640'),
      },
    ];
    await expectRefused(cases);
  }, 60_000);
});

describe('mainnet needs allowMainnet: true in the run file and --allow-mainnet (exit 2, no stack trace, nothing sent)', () => {
  it('clobbot run and clobbot account refuse each half alone', async () => {
    const key = keyFile('mainnet.key', KEY, 0o600);
    const mainnetHosts = `hosts: { relayUrl: "${host}", relayWsUrl: "${host.replace(/^http/, 'ws')}/relay/ws", rpcUrl: "${host}/rpc", exchangeUrl: "${host}", userUrl: "${host}", baseUrl: "${host}", quoteUrl: "${host}" }`;
    const optedIn = runFile('opted-in.yaml', { network: 'mainnet', allowMainnet: true, wallet: `{ privateKeyFile: ${key} }`, hosts: mainnetHosts });
    const notOptedIn = runFile('not-opted-in.yaml', { network: 'mainnet', wallet: `{ privateKeyFile: ${key} }`, hosts: mainnetHosts });
    const testnet = runFile('testnet.yaml', { network: 'testnet', wallet: `{ privateKeyFile: ${key} }` });
    const escape = (path: string) => path.replace(/[.]/g, '\\.');
    await expectRefused([
      // The file opted in, the command line did not.
      { args: ['run', optedIn], stderr: /^error CLI_USAGE: run: mainnet moves real money: it needs --allow-mainnet on the command line\n$/ },
      { args: ['account', 'status', '--config', optedIn], stderr: /^error CLI_USAGE: account: mainnet moves real money: it needs --allow-mainnet on the command line\n$/ },
      // The command line opted in, the file did not: located at the file's network.
      {
        args: ['run', notOptedIn, '--allow-mainnet'],
        stderr: new RegExp(`^error CONFIG_INVALID: ${escape(notOptedIn)}: 1 problem\\n {2}${escape(notOptedIn)}:1:10 network: mainnet trades real money: add allowMainnet: true to the run file to opt in\\n$`),
      },
      // Another network's file sent to mainnet with --network and the flag: the file's half is missing.
      { args: ['run', testnet, '--network', 'mainnet', '--allow-mainnet'], stderr: new RegExp(`^error CLI_USAGE: run: mainnet moves real money: it needs allowMainnet: true in ${escape(testnet)}\\n$`) },
      { args: ['account', 'setup', '--config', testnet, '--network', 'mainnet', '--allow-mainnet'], stderr: new RegExp(`^error CLI_USAGE: account: mainnet moves real money: it needs allowMainnet: true in ${escape(testnet)}\\n$`) },
    ]);
  }, 60_000);
});

describe("clobbot account never prints a run file's value from the environment", () => {
  it('an API key in the path of the hosts: not in the header, not in the errors naming a URL', async () => {
    const secret = 'PROJECT-5ec7e7-api-key-0f3a9';
    const key = keyFile('env-hosts.key', KEY, 0o600);
    const ws = host.replace(/^http/, 'ws');
    const file = runFile('env-hosts.yaml', {
      network: 'testnet',
      wallet: `{ privateKeyFile: ${key} }`,
      hosts: `hosts: { exchangeUrl: "${host}/x/\${API_KEY}", userUrl: "${host}/u/\${API_KEY}", relayUrl: "${host}/r/\${API_KEY}", relayWsUrl: "${ws}/w/\${API_KEY}", rpcUrl: "${host}/rpc/\${API_KEY}" }`,
    });
    const sim = tmp.write('env-sim.yaml', ['network: sim', `venueUrl: "${host}/\${API_KEY}"`, `wallet: { privateKeyFile: ${key} }`, 'markets: [MON_USDC]', 'strategies:', `  - { name: mm, module: ${join(ROOT, 'strategies/market-maker.ts')}, markets: [MON_USDC] }`, 'risk: { maxPosition: "1", maxOrderSize: "1", maxNotional: "1" }'].join('\n'));
    const simRunFile = tmp.write('env-sim-run.yaml', ['network: sim', `venueUrl: "${host}/\${API_KEY}"`, `simConfig: ${join(ROOT, 'config/sim.yaml')}`, `wallet: { privateKeyFile: ${key} }`, 'markets: [MON_USDC]', 'strategies:', `  - { name: mm, module: ${join(ROOT, 'strategies/market-maker.ts')}, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "1", maxInventory: "1" } }`, 'risk: { maxPosition: "1", maxOrderSize: "1", maxNotional: "1" }'].join('\n'));
    const contracts = ['--account-core', `0x${'11'.repeat(20)}`, '--delegate', `0x${'22'.repeat(20)}`];
    const before = connections;
    const [status, setup, simStatus, simRun] = await Promise.all([
      runCliProcess(['account', 'status', '--config', file], { cwd: tmp.dir, env: { ...env, API_KEY: secret } }),
      runCliProcess(['account', 'setup', '--config', file, ...contracts], { cwd: tmp.dir, env: { ...env, API_KEY: secret } }),
      runCliProcess(['account', 'status', '--config', sim], { cwd: tmp.dir, env: { ...env, API_KEY: secret } }),
      runCliProcess(['run', simRunFile, '--journal-dir', join(tmp.dir, 'journal-env')], { cwd: tmp.dir, env: { ...env, API_KEY: secret } }),
    ]);
    // They did reach the hosts (which hung up), and said so, naming the relay.
    expect(connections - before).toBeGreaterThanOrEqual(2);
    expect(status.stdout).toMatch(new RegExp(`^account status on testnet \\(chain 10143, relay ${host.replace(/[.]/g, '\\.')}/r/\\[redacted\\]\\)\\n`));
    expect(status.stdout + status.stderr).toMatch(/HTTP_UNAVAILABLE: .*\/u\/\[redacted\]\/api\/v2\//);
    expect(setup.stdout).toMatch(/^account setup on testnet \(chain 10143, relay .*\/r\/\[redacted\]\)\n/);
    expect(simStatus.stderr).toMatch(/^error HTTP_UNAVAILABLE: the local venue at \[redacted\] cannot be reached/);
    expect(simRun.stderr).toMatch(/error HTTP_UNAVAILABLE: the local venue at \[redacted\] cannot be reached/);
    for (const result of [status, setup, simStatus, simRun]) {
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(hasStackTrace(result.stderr)).toBe(false);
    }
    // The key file is still named: it is how the user finds the key.
    expect(status.stdout).toContain(`  trading wallet  `);
    expect(status.stdout).toContain(`(key file ${key})`);
  }, 60_000);
});
