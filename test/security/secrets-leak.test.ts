/**
 * The whole life of a bot with known secrets, through the real `clobbot` command, and every output
 * searched for them: a local venue (`clobbot sim`) behind a loopback tap that keeps every byte,
 * `clobbot account setup` with the trading key in a file and the owner key in another, `clobbot run`
 * with its metrics endpoint, killed with SIGKILL mid-run and started again on its journal (recording
 * the market and writing a summary), `clobbot account status`, `clobbot backtest` of the recording,
 * and runs with bad configs that error. Secrets: both private keys and every JWT the venue issued
 * (taken off the wire: the bot keeps its JWTs in memory only, so no file may hold one).
 *
 * Searched: the stdout and stderr of every process (the venue's too), every file under the test's
 * directory (the working directory, HOME and TMPDIR of every process: journals, lock files, the
 * summary, recordings, the feed cache, the backtest's outputs), every metrics scrape, every request
 * line the bot sent, and every byte it sent outside its Authorization headers. Encodings: each key
 * with and without 0x, in either case, a 24-digit piece of it, base64 and base64url of its bytes, its
 * decimal value and (in files) its raw bytes; each JWT whole, its signature part, that signature in
 * base64 and (in files) its raw bytes; and anything shaped like a JWT at all. Exempt: only the key
 * files the test wrote as inputs (the two the CLI reads are checked to stay mode 0600; the third is
 * the 0644 one a bad run must refuse). No JWT file is exempt: the bot writes none.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli-harness.ts';
import { hasStackTrace, summaryCounts } from '../cli/run-harness.ts';
import { JWT_SHAPE, ROOT, filesUnder, findSecrets, jwtForms, keyForms, runCliProcess, spawnCli, startTap, type CliProcess, type SecretForms, type Tap } from './leak-support.ts';

const WALLET_KEY = generatePrivateKey();
const OWNER_KEY = generatePrivateKey();
const WALLET = privateKeyToAccount(WALLET_KEY).address.toLowerCase();
const OWNER = privateKeyToAccount(OWNER_KEY).address.toLowerCase();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A debug line of the run saying an intent was confirmed. */
const confirmed = ({ stderr }: { stderr: string }) => stderr.split('\n').some((line) => line.includes('"msg":"intent done"') && line.includes('"status":"CONFIRMED"'));

/** Everything the flow produced, gathered for the searches below. */
interface Outputs {
  /** [what, text] of every process output and metrics scrape. */
  readonly texts: [string, string][];
  readonly tap: Tap;
  /** The key files the test wrote (inputs: exempt from the search). */
  readonly inputKeyFiles: readonly string[];
  /** Those the CLI takes (mode 0600). */
  readonly keyFiles: readonly string[];
  readonly root: string;
  /** The processes, by step. */
  readonly steps: Record<string, { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  readonly metrics: readonly string[];
  readonly venueStderr: string;
}

let tmp: ReturnType<typeof tempDir>;
let sim: CliProcess | undefined;
let tap: Tap | undefined;
let outputs: Outputs;

/** Every JWT the venue issued: the `accessToken` of each `/auth/token` answer that went through the tap. */
function issuedJwts(): string[] {
  return [...new Set([...outputs.tap.serverText().matchAll(/"accessToken":"([^"]+)"/g)].map((match) => match[1]!))];
}

function secrets(): SecretForms[] {
  return [keyForms('trading key', WALLET_KEY), keyForms('owner key', OWNER_KEY), ...issuedJwts().map((jwt, i) => jwtForms(`JWT ${i + 1}`, jwt))];
}

describe('the search itself', () => {
  it('finds each form of a key and of a JWT, wherever it sits', () => {
    const key = `0x${'0123456789abcdef'.repeat(4)}`;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDEifQ.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMzItYnl0ZXMhIQ';
    const forms = [keyForms('key', key), jwtForms('jwt', jwt)];
    const bytes = Buffer.from(key.slice(2), 'hex');
    const signature = Buffer.from(jwt.split('.')[2]!, 'base64url');
    for (const planted of [
      key,
      key.slice(2),
      key.toUpperCase(),
      `0x${key.slice(2).toUpperCase()}`,
      `…${key.slice(2, 50)}…`,
      bytes.toString('base64'),
      bytes.toString('base64url'),
      BigInt(key).toString(),
      jwt,
      jwt.split('.')[2]!,
      signature.toString('base64'),
    ]) {
      expect(findSecrets('text', `before ${planted} after`, forms), planted).not.toEqual([]);
    }
    for (const raw of [bytes, signature]) expect(findSecrets('file', '', forms, Buffer.concat([Buffer.from('head'), raw, Buffer.from('tail')]))).not.toEqual([]);
    expect(findSecrets('text', `0x${'ab'.repeat(32)} ${jwt.split('.')[0]}`, forms)).toEqual([]);
    expect(`a ${jwt} b`.match(JWT_SHAPE)).toHaveLength(1);
  });
});

describe('secrets through the whole flow: setup, run, crash, restart, status, backtest, bad configs', () => {
  beforeAll(async () => {
    tmp = tempDir();
    const root = tmp.dir;
    const cwd = join(root, 'cwd');
    const home = join(root, 'home');
    const tmpdir = join(root, 'tmp');
    const keys = join(root, 'keys');
    for (const dir of [cwd, home, tmpdir, keys]) mkdirSync(dir, { recursive: true });
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, TMPDIR: tmpdir };
    const texts: [string, string][] = [];
    const steps: Outputs['steps'] = {};
    const keep = (step: string, result: Outputs['steps'][string]) => {
      steps[step] = result;
      texts.push([`${step} stdout`, result.stdout], [`${step} stderr`, result.stderr]);
      return result;
    };

    // Inputs: the two key files (0600), a quick sim config, the run files.
    const walletKeyFile = join(keys, 'wallet.key');
    const ownerKeyFile = join(keys, 'owner.key');
    writeFileSync(walletKeyFile, `${WALLET_KEY}\n`, { mode: 0o600 });
    writeFileSync(ownerKeyFile, `${OWNER_KEY}\n`, { mode: 0o600 });
    const simDocument = parseDocument(readFileSync(join(ROOT, 'config/sim.yaml'), 'utf8'));
    simDocument.set('blockMs', 50);
    simDocument.deleteIn(['markets', 1]);
    simDocument.setIn(['markets', 0, 'flow', 'arrivalsPerSecond', 'market'], 4);
    simDocument.setIn(['markets', 0, 'flow', 'arrivalsPerSecond', 'limit'], 10);
    simDocument.setIn(['userData', 'orderEventsCacheMs'], 100);
    simDocument.deleteIn(['funding', 'default', 'WETH']);
    const simFile = tmp.write('sim.yaml', simDocument.toString());

    const metricsPort = await freePort();
    const runFile = (name: string, lines: { venueUrl: string; wallet?: string; params?: string }) =>
      tmp.write(
        name,
        [
          'network: sim',
          `venueUrl: ${lines.venueUrl}`,
          `simConfig: ${simFile}`,
          `wallet: ${lines.wallet ?? `{ privateKeyFile: ${walletKeyFile} }`}`,
          `account: { owner: "${OWNER}" }`,
          'markets: [MON_USDC]',
          'strategies:',
          `  - { name: mm, module: ${join(ROOT, 'strategies/market-maker.ts')}, markets: [MON_USDC], params: ${lines.params ?? '{ levels: 2, spreadBps: 3, size: "500", maxInventory: "50000" }'} }`,
          'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, maxOrdersPerSecond: 200 }',
          'logging: { level: trace }',
          `metrics: { port: ${metricsPort} }`,
          'duration: 60s',
        ].join('\n'),
      );

    // The venue, and the runs with bad configs (they need no venue) at the same time.
    sim = spawnCli(['sim', '--port', '0', '--config', simFile, '--seed', '5'], { cwd, env: { ...env, CLOBBOT_LOG_LEVEL: 'debug' } });
    const looseKey = join(keys, 'loose.key');
    writeFileSync(looseKey, `${WALLET_KEY}\n`);
    chmodSync(looseKey, 0o644);
    const badRuns = Promise.all([
      // The wallet key reaches a strategy parameter through ${…}: refused, located, without the value.
      runCliProcess(['run', runFile('bad-params.yaml', { venueUrl: 'http://127.0.0.1:9', params: '{ levels: 2, spreadBps: 3, size: "${LEAKY}", maxInventory: "${LEAKY}" }' })], { cwd, env: { ...env, LEAKY: WALLET_KEY } }),
      // A key file others can read.
      runCliProcess(['run', runFile('loose-key.yaml', { venueUrl: 'http://127.0.0.1:9', wallet: `{ privateKeyFile: ${looseKey} }` })], { cwd, env }),
    ]);
    await sim.until(({ stdout }) => /listening on http:\/\/127\.0\.0\.1:\d+\n/.test(stdout), 'the venue listened');
    const venuePort = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)\n/.exec(sim.stdout())![1]);
    tap = await startTap({ host: '127.0.0.1', port: venuePort });
    const file = runFile('run.yaml', { venueUrl: tap.url });

    const setup = keep('account setup', await runCliProcess(['account', 'setup', '--config', file, '--owner-key-file', ownerKeyFile], { cwd, env }));
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);

    // A run killed with SIGKILL once it has traded and its metrics were scraped.
    const journal = join(cwd, 'journal');
    const metrics: string[] = [];
    const scrape = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      metrics.push(text);
      texts.push([`metrics scrape ${metrics.length}`, text]);
      return text;
    };
    const first = spawnCli(['run', file, '--journal-dir', journal], { cwd, env });
    await first.until(confirmed, 'an intent was confirmed');
    await first.until(({ stdout }) => stdout.includes('  metrics     '), 'the metrics endpoint was up');
    await scrape();
    first.child.kill('SIGKILL');
    keep('run (killed)', { ...(await first.exit), stdout: first.stdout(), stderr: first.stderr() });

    // Started again on the same journal: it recovers, trades, records, writes its summary, stops.
    const summary = join(cwd, 'summary.json');
    const record = join(cwd, 'record');
    const second = spawnCli(['run', file, '--journal-dir', journal, '--duration', '3', '--summary', summary, '--record', record], { cwd, env });
    await second.until(confirmed, 'an intent was confirmed after the restart');
    await scrape();
    keep('run (restarted)', { ...(await second.exit), stdout: second.stdout(), stderr: second.stderr() });

    const [status, backtest] = await Promise.all([
      runCliProcess(['account', 'status', '--config', file], { cwd, env }),
      runCliProcess(['backtest', file, '--feed', filesUnder(record).find((entry) => entry.path.endsWith('.raw'))!.path, '--out', join(cwd, 'backtest')], { cwd, env }),
    ]);
    keep('account status', status);
    keep('backtest', backtest);
    const [params, loose] = await badRuns;
    keep('run (bad params)', params!);
    keep('run (loose key file)', loose!);

    sim.child.kill('SIGTERM');
    const venueExit = await sim.exit;
    expect(venueExit.code).toBe(0);
    texts.push(['venue stdout', sim.stdout()], ['venue stderr', sim.stderr()]);
      outputs = { texts, tap, keyFiles: [walletKeyFile, ownerKeyFile], inputKeyFiles: [walletKeyFile, ownerKeyFile, looseKey], root, steps, metrics, venueStderr: sim.stderr() };
  }, 60_000);

  afterAll(async () => {
    if (sim !== undefined && sim.child.exitCode === null) sim.child.kill('SIGKILL');
    await tap?.close();
    tmp?.remove();
  });

  it('the flow ran: set up, traded, crashed, recovered from its journal, recorded, backtested, refused the bad configs', () => {
    const { steps } = outputs;
    expect(steps['account setup']!.stdout).toContain(`  trading wallet  ${WALLET} (key file `);
    expect(steps['account setup']!.stdout).toContain(`  owner           ${OWNER} (key file `);
    expect(steps['run (killed)']!.signal).toBe('SIGKILL');
    const restarted = steps['run (restarted)']!;
    expect(restarted.code, restarted.stderr.slice(-2000)).toBe(0);
    const opened = restarted.stderr.split('\n').find((line) => line.includes('"msg":"journal opened"'));
    expect(opened).toBeDefined();
    // The journal the killed run wrote was read back.
    expect(JSON.parse(opened!).records).toBeGreaterThan(0);
    expect(summaryCounts(restarted.stdout).openAfterStop).toBe(0);
    expect(steps['account status']!.code, steps['account status']!.stderr).toBe(0);
    expect(steps['account status']!.stdout).toContain('  signer grant    yes: TRADE');
    expect(steps['backtest']!.code, steps['backtest']!.stderr.slice(-2000)).toBe(0);
    for (const bad of ['run (bad params)', 'run (loose key file)']) {
      expect(steps[bad]!.code, bad).toBe(2);
      expect(hasStackTrace(steps[bad]!.stderr), bad).toBe(false);
    }
    expect(steps['run (bad params)']!.stderr).toMatch(/bad-params\.yaml:\d+:\d+ strategies\[0\]\.params\.size: /);
    expect(steps['run (loose key file)']!.stderr).toMatch(/^error CONFIG_WALLET_KEY_INSECURE: key file .*loose\.key has permissions 0644, too open/);
    expect(outputs.metrics.every((text) => text.includes('# TYPE clobbot_orders_placed_total counter'))).toBe(true);
  });

  it('the venue issued JWTs and the bot used them: the searches below look for real tokens', () => {
    const jwts = issuedJwts();
    const issuedLogs = outputs.venueStderr.split('\n').filter((line) => line.includes('"msg":"relay JWT issued"'));
    // Setup, both runs and status each signed in.
    expect(jwts.length).toBeGreaterThanOrEqual(3);
    // Every JWT the venue says it issued went through the tap. (Two sign-ins of one wallet within a
    // second get the same token: its claims are the wallet, iat and exp in seconds.)
    const answers = [...outputs.tap.serverText().matchAll(/"accessToken":"([^"]+)"/g)];
    expect(answers.length).toBe(issuedLogs.length);
    const bearers = new Set([...outputs.tap.clientText().matchAll(/\r\nauthorization: Bearer (\S+)\r\n/gi)].map((match) => match[1]!));
    expect(bearers.size).toBeGreaterThanOrEqual(3);
    for (const bearer of bearers) expect(jwts).toContain(bearer);
  });

  it('no key and no JWT in any output, any file, any metrics scrape, in any encoding', () => {
    const forms = secrets();
    const found: string[] = [];
    for (const [what, text] of outputs.texts) {
      found.push(...findSecrets(what, text, forms));
      for (const match of text.matchAll(JWT_SHAPE)) found.push(`${what}: something shaped like a JWT (${match[0].slice(0, 12)}…)`);
    }
    const files = filesUnder(outputs.root).filter((file) => !outputs.inputKeyFiles.includes(file.path));
    // The journal, its lock, the summary, the recording and the backtest's outputs are all there.
    for (const expected of [/\/journal\/sim-0x[0-9a-f]{40}\.journal\.jsonl$/, /\/summary\.json$/, /\/record\/MON_USDC-\d+\.raw$/, /\/backtest\/report\.html$/, /\/backtest\/manifest\.json$/]) {
      expect(files.some((file) => expected.test(file.path)), String(expected)).toBe(true);
    }
    for (const file of files) {
      const text = file.bytes.toString('latin1');
      found.push(...findSecrets(file.path, text, forms, file.bytes));
      for (const match of text.matchAll(JWT_SHAPE)) found.push(`${file.path}: something shaped like a JWT (${match[0].slice(0, 12)}…)`);
    }
    expect(found).toEqual([]);
  });

  it('the key files stay 0600, and the journal the bot writes is 0600 too', () => {
    for (const file of filesUnder(outputs.root)) {
      if (outputs.keyFiles.includes(file.path)) expect(file.mode, file.path).toBe(0o600);
      if (/\.journal\.jsonl$/.test(file.path)) expect(file.mode, file.path).toBe(0o600);
    }
  });

  it('no JWT, access_token or key ever went into a URL; a JWT went only into Authorization headers', () => {
    const requests = outputs.tap.requests();
    const targets = requests.map((request) => request.target);
    // Every kind of request the bot makes went through the tap.
    expect(targets.some((target) => target === '/relay/ws')).toBe(true);
    expect(targets.some((target) => target === '/auth/token')).toBe(true);
    expect(targets.some((target) => target === '/relay')).toBe(true);
    expect(targets.some((target) => target.startsWith('/api/v3/depth?'))).toBe(true);
    expect(targets.some((target) => target.startsWith('/rpc'))).toBe(true);
    const forms = secrets();
    const inUrls = findSecrets('a URL', targets.join('\n'), forms);
    expect(inUrls).toEqual([]);
    expect(targets.filter((target) => /access_token|[?&](token|jwt|auth)=|bearer/i.test(target))).toEqual([]);
    expect(targets.filter((target) => target.match(JWT_SHAPE) !== null)).toEqual([]);

    // Take every `authorization: Bearer <JWT>` header out of what the bot sent: no JWT is left anywhere else.
    const sent = outputs.tap.clientText().replace(/\r\nauthorization: Bearer \S+\r\n/gi, '\r\n');
    expect(findSecrets('what the bot sent, outside Authorization headers', sent, forms.filter((form) => form.name.startsWith('JWT')))).toEqual([]);
    // Nor any form of the private keys, anywhere on the wire.
    expect(findSecrets('what the bot sent', outputs.tap.clientText(), forms.filter((form) => !form.name.startsWith('JWT')))).toEqual([]);
  });
});
