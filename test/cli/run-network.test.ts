/**
 * `clobbot run` off the sim: a real local venue posing as testnet (its chain id is testnet's, 10143),
 * every host of the run file pointed at it, a wallet set up beforehand through `clobbot account
 * setup`, and markets given whole in the run file. The run trades with what the file says and checks
 * the network first: the RPC's chain, the exchange host's market info and the relay's answer for
 * the wallet, each refusal located in the file or saying what to run.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveClock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema } from '../../src/config/sim-config.ts';
import { createSimServer, type SimServer } from '../../src/sim/sim-server.ts';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, summaryCounts, workspace, type Workspace } from './run-harness.ts';

const WALLET_KEY = `0x${'d4'.repeat(32)}`;
const STRANGER_KEY = `0x${'e5'.repeat(32)}`;
const TESTNET_CHAIN = 10143;
const MM = '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 5, size: "500", maxInventory: "50000" } }';
const RISK = 'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, maxOrdersPerSecond: 200 }';

let ws: Workspace;
let server: SimServer;
let url: string;
let simFile: string;
let accountId: bigint;
/** MON_USDC as the venue publishes it (GET /sim/info), in the run file's form. */
let market: Record<string, unknown>;

beforeAll(async () => {
  ws = workspace();
  const document = parseDocument(readFileSync(ws.simConfig(), 'utf8'));
  document.set('chainId', TESTNET_CHAIN);
  simFile = ws.runFile('sim-testnet.yaml', [document.toString()]);
  server = createSimServer({
    config: await loadConfigOrThrow(simFile, simConfigSchema, { env: {} }),
    clock: liveClock,
    random: seededRandom(11),
    logger: createLogger({ level: 'silent' }),
    backgroundFlow: true,
  });
  url = (await server.start({ port: 0 })).url.replace(/\/+$/, '');

  // The wallet's account, funded and set up the way a user would on the sim.
  const setupFile = ws.runFile('setup.yaml', [
    'network: sim',
    `venueUrl: ${url}`,
    `simConfig: ${simFile}`,
    'wallet: { privateKeyEnv: CLOBBOT_KEY }',
    'markets: [MON_USDC]',
    'strategies:',
    MM,
    RISK,
  ]);
  const setup = await runCli(['account', 'setup', '--config', setupFile], { CLOBBOT_KEY: WALLET_KEY });
  expect(setup.code, setup.stdout + setup.stderr).toBe(0);
  expect(setup.stdout).toContain(`(chain ${TESTNET_CHAIN}, nonce 0)`);
  accountId = BigInt(/account id {6}(\d+)/.exec(setup.stdout)![1]!);

  const info = (await (await fetch(`${url}/sim/info`)).json()) as { markets: Record<string, any>[] };
  const mon = info.markets.find((candidate) => candidate.symbol === 'MON_USDC')!;
  const token = (spec: Record<string, unknown>) => ({ address: spec['address'], symbol: spec['symbol'], decimals: spec['decimals'] });
  market = {
    symbol: mon['symbol'],
    address: mon['address'],
    baseToken: token(mon['baseToken']),
    quoteToken: token(mon['quoteToken']),
    ...Object.fromEntries(['pricePrecision', 'sizePrecision', 'tickSize', 'minSize', 'maxSize', 'makerFeePps', 'takerFeePps'].map((key) => [key, mon[key]])),
  };
});

afterAll(async () => {
  await server?.stop();
  ws?.remove();
});

interface TestnetFile {
  readonly network?: string;
  readonly markets?: readonly string[];
  readonly account?: string | null;
  readonly hosts?: string;
  readonly extra?: readonly string[];
  readonly duration?: string;
}

/** A run file for testnet with every host at the local venue; `markets` lines replace the venue's MON_USDC. */
function testnetFile(name: string, options: TestnetFile = {}): string {
  const ws$ = url.replace(/^http/, 'ws');
  return ws.runFile(name, [
    `network: ${options.network ?? 'testnet'}`,
    ...(options.extra ?? []),
    options.hosts ?? `hosts: { exchangeUrl: "${url}", userUrl: "${url}", relayUrl: "${url}", relayWsUrl: "${ws$}/relay/ws", rpcUrl: "${url}/rpc" }`,
    'wallet: { privateKeyEnv: CLOBBOT_KEY }',
    ...(options.account === null ? [] : [options.account ?? `account: { id: ${accountId} }`]),
    'markets:',
    ...(options.markets ?? [`  - ${JSON.stringify(market)}`]),
    'strategies:',
    MM,
    RISK,
    'logging: { level: info }',
    `duration: ${options.duration ?? '4s'}`,
  ]);
}

/** The venue's MON_USDC with some fields changed, as a `markets` line. */
const marketLine = (change: Record<string, unknown>) => `  - ${JSON.stringify({ ...market, ...change })}`;

function journalFiles(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return readdirSync(dir);
}

describe('clobbot run on testnet (a local venue with testnet chain id)', () => {
  it('trades the market maker with the markets given whole, and stops with nothing open', async () => {
    const file = testnetFile('mm.yaml');
    const journal = join(ws.dir, 'journal-mm');
    const result = await runCli(['run', file, '--journal-dir', journal], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.code, `${result.stdout}\n${result.stderr.slice(-3000)}`).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^clobbot run .*mm\\.yaml: network testnet \\(relay ${url.replace(/[.]/g, '\\.')}, chain ${TESTNET_CHAIN}\\), markets MON_USDC, for 4 s\\n`));
    expect(result.stdout).toContain(`; account ${accountId}\n`);
    expect(result.stdout).toContain(`  account     ready: delegated, TRADE on account ${accountId} under authNonce 0 (checked with the relay; nothing funded or set up by the run)\n`);
    const counts = summaryCounts(result.stdout);
    expect(counts.placed).toBeGreaterThanOrEqual(2);
    expect(counts.openAfterStop).toBe(0);
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(result.stdout + result.stderr).not.toContain(WALLET_KEY.slice(2, 30));
    expect(journalFiles(journal).some((name) => name.startsWith('testnet-'))).toBe(true);

    // The venue agrees: nothing of the account is left on the book.
    const owner = /wallet {6}(0x[0-9a-f]{40})/.exec(result.stdout)![1]!;
    const active = (await (await fetch(`${url}/api/v2/${owner}/user/orders/active/${market['address']}`)).json()) as { data: { data: unknown[] } };
    expect(active.data.data).toEqual([]);
  });

  it('refuses a wallet that is not set up: RUN_ACCOUNT_NOT_READY, exit 1, nothing signed or changed', async () => {
    const file = testnetFile('stranger.yaml');
    const journal = join(ws.dir, 'journal-stranger');
    for (let attempt = 0; attempt < 2; attempt++) {
      // The second attempt gets the same answer: the first changed nothing on the venue.
      const result = await runCli(['run', file, '--journal-dir', journal], { CLOBBOT_KEY: STRANGER_KEY });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error RUN_ACCOUNT_NOT_READY: the trading wallet 0x[0-9a-f]{40} is not delegated \(EIP-7702\) to the trading-wallet delegate on testnet \(the relay says WALLET_NOT_DELEGATED.*\): run clobbot account setup --config .*stranger\.yaml --network testnet first$/m,
      );
      expect(result.stdout).toBe('');
      expect(journalFiles(journal)).toEqual([]);
    }
  });

  it('refuses an authNonce the account is not at, saying what to fix', async () => {
    const result = await runCli(['run', testnetFile('epoch.yaml', { account: `account: { id: ${accountId}, authNonce: "3" }` })], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^error RUN_ACCOUNT_NOT_READY: account ${accountId} is not at the authNonce epoch the run signs under, 3 \\(account\\.authNonce in .*epoch\\.yaml; the relay says AUTH_NONCE_MISMATCH: .*\\): set account\\.authNonce to the account's current epoch \\(revoking a signer bumps it\\)`, 'm'),
    );
  });

  it('refuses markets the network does not know, located: a tick the exchange host does not list, an address the relay does not know', async () => {
    const tick = testnetFile('tick.yaml', { markets: [marketLine({ tickSize: Number(market['tickSize']) * 2 })] });
    const ticked = await runCli(['run', tick], { CLOBBOT_KEY: WALLET_KEY });
    expect(ticked.code).toBe(2);
    expect(ticked.stderr).toMatch(
      new RegExp(`^error CONFIG_INVALID: .*tick\\.yaml: 1 problem\\n {2}.*tick\\.yaml:\\d+:\\d+ markets\\[0\\]\\.tickSize: the exchange host lists MON_USDC with PRICE_FILTER tickSize [0-9.]+ \\(GET /api/v3/exchangeInfo\\); this market says [0-9.]+ \\(\\d+ / pricePrecision \\d+\\)\\n$`),
    );

    const address = testnetFile('address.yaml', { markets: [marketLine({ address: `0x${'ab'.repeat(20)}` })] });
    const addressed = await runCli(['run', address], { CLOBBOT_KEY: WALLET_KEY });
    expect(addressed.code).toBe(2);
    expect(addressed.stderr).toMatch(/address\.yaml:\d+:\d+ markets\[0\]\.address: the relay of testnet knows no market at this address \(UNKNOWN_MARKET\)\n$/);
  });

  it('refuses an RPC endpoint of another chain, located at hosts.rpcUrl', async () => {
    const file = testnetFile('chain.yaml', { network: 'mainnet', extra: ['allowMainnet: true'] });
    const result = await runCli(['run', file, '--allow-mainnet'], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`chain\\.yaml:\\d+:\\d+ hosts\\.rpcUrl: serves chain ${TESTNET_CHAIN}, but mainnet is chain 143: point it at a mainnet endpoint\\n$`));
  });
});

describe('clobbot run on testnet: mistakes in the run file (exit 2, located)', () => {
  async function refused(file: string, env: Record<string, string> = { CLOBBOT_KEY: WALLET_KEY }): Promise<string> {
    const result = await runCli(['run', file], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(hasStackTrace(result.stderr)).toBe(false);
    // `clobbot validate` finds the same problems without running anything.
    const validated = await runCli(['validate', file], {});
    expect(validated.code).toBe(2);
    return result.stderr;
  }

  it('a bare symbol: markets are given whole off the sim', async () => {
    const file = testnetFile('bare.yaml', { markets: ['  - MON_USDC'] });
    expect(await refused(file)).toContain(
      `${file}:6:5 markets[0]: on testnet a market is given whole, not by symbol (no API of testnet publishes a market's address, tick, sizes and fees): write a map giving the whole market: symbol, address, baseToken, quoteToken, pricePrecision, sizePrecision, tickSize, minSize, maxSize, makerFeePps, takerFeePps`,
    );
  });

  it('no account.id', async () => {
    const file = testnetFile('no-id.yaml', { account: 'account: { authNonce: 0 }' });
    expect(await refused(file)).toContain(`${file}:4:10 account.id: required on testnet: the id (uint40) of the account the wallet trades for`);
  });

  it('a market object with a zero tick, a bad address, or a field of the wrong kind', async () => {
    const tick = testnetFile('zero-tick.yaml', { markets: [marketLine({ tickSize: 0, minSize: '0' })] });
    const ticks = await refused(tick);
    expect(ticks).toMatch(new RegExp(`zero-tick\\.yaml:6:\\d+ markets\\[0\\]\\.tickSize: must be positive\\n`));
    expect(ticks).toMatch(new RegExp(`zero-tick\\.yaml:6:\\d+ markets\\[0\\]\\.minSize: must be positive\\n`));

    const address = testnetFile('bad-address.yaml', { markets: [marketLine({ address: '0x1234' })] });
    expect(await refused(address)).toMatch(/bad-address\.yaml:6:\d+ markets\[0\]\.address: expected an address: 0x and 40 hex characters\n/);

    const kind = testnetFile('kind.yaml', { markets: [marketLine({ makerFeePps: 'free', colour: 'blue' })] });
    const kinds = await refused(kind);
    expect(kinds).toMatch(/kind\.yaml:6:\d+ markets\[0\]\.makerFeePps: expected an integer \(a YAML integer or a string of digits\), got a string\n/);
    expect(kinds).toMatch(/kind\.yaml:6:\d+ markets\[0\]\.colour: unknown key/);
  });

  it('a sim run file sent to testnet with --network: every rule of testnet, located', async () => {
    const file = ws.runFile('sim-file.yaml', ['network: sim', `simConfig: ${simFile}`, 'wallet: { ephemeral: true }', 'markets: [MON_USDC]', 'strategies:', MM, RISK]);
    const result = await runCli(['run', file, '--network', 'testnet'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error CONFIG_INVALID: .*sim-file\.yaml: 5 problems on network testnet \(--network\)\n/);
    for (const expected of [':2:12 simConfig: simConfig applies to network sim only', ':3:22 wallet.ephemeral: an ephemeral wallet exists on network sim only', ':4:11 markets[0]: on testnet a market is given whole', ':1:10 network: network testnet has no default exchangeUrl, userUrl, rpcUrl', ':1:1 account.id: required on testnet']) {
      expect(result.stderr).toContain(expected);
    }
  });
});

describe('markets given whole on the sim', () => {
  it('one that matches the venue runs as its symbol would', async () => {
    const file = ws.runFile('sim-match.yaml', ['network: sim', `venueUrl: ${url}`, `simConfig: ${simFile}`, 'wallet: { privateKeyEnv: CLOBBOT_KEY }', 'markets:', marketLine({}), 'strategies:', MM, RISK, 'duration: 1s']);
    const result = await runCli(['run', file, '--journal-dir', join(ws.dir, 'journal-sim')], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toContain(`(venue ${url}, chain ${TESTNET_CHAIN}), markets MON_USDC, for 1 s\n`);
    expect(result.stdout).toMatch(/ {2}account {5}already set up \(delegated, TRADE on account \d+\)\n/);
    expect(summaryCounts(result.stdout).openAfterStop).toBe(0);
  });

  it('must match the venue: a different field is refused, located', async () => {
    const file = ws.runFile('sim-object.yaml', ['network: sim', `venueUrl: ${url}`, `simConfig: ${simFile}`, 'wallet: { privateKeyEnv: CLOBBOT_KEY }', 'markets:', marketLine({ makerFeePps: 7 }), 'strategies:', MM, RISK]);
    const result = await runCli(['run', file], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`sim-object\\.yaml:6:\\d+ markets\\[0\\]\\.makerFeePps: differs from the venue's MON_USDC \\(${url.replace(/[.]/g, '\\.')} has 0\\): on sim a market given whole must match the venue, or list it by symbol\\n$`));
  });
});

describe('docs/configuration.md', () => {
  it('its testnet run file is valid', async () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const example = /<!-- testnet-example -->\n```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const file = ws.runFile('docs-testnet.yaml', [example!]);
    // validate checks the key source as clobbot run does: the file's privateKeyEnv must be set.
    const result = await runCli(['validate', file], { CLOBBOT_KEY: WALLET_KEY });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${file}: valid run file (network testnet, 1 strategy, markets MON_USDC)\n`);
  });
});
