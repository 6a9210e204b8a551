import { chmodSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  OTHER_WALLET,
  OWNER,
  WALLET,
  batchRestBody,
  bearer,
  lower,
  postText,
  restingBuy,
  signIn,
  startTestVenue,
  waitForReceipt,
  type TestVenue,
} from '../sim/relay-harness.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';
import { Decimal } from '../../src/core/decimal.ts';

const WALLET_KEY = `0x${'b2'.repeat(32)}`;
const OWNER_KEY = `0x${'a1'.repeat(32)}`;
const OTHER_KEY = `0x${'c3'.repeat(32)}`;
const SIM_CONFIG = new URL('../../config/sim.yaml', import.meta.url).pathname;

let venue: TestVenue | undefined;
const temps: { remove(): void }[] = [];
afterEach(async () => {
  for (const temp of temps.splice(0)) temp.remove();
  await venue?.stop();
  venue = undefined;
});

function runFile(options: { venueUrl: string; wallet?: string; owner?: string; extra?: string }): string {
  const tmp = tempDir();
  temps.push(tmp);
  return tmp.write(
    'run.yaml',
    [
      'network: sim',
      `venueUrl: ${options.venueUrl}`,
      `simConfig: ${SIM_CONFIG}`,
      `wallet: ${options.wallet ?? '{ privateKeyEnv: CLOBBOT_KEY }'}`,
      ...(options.owner === undefined ? [] : [`account: { owner: "${options.owner}" }`]),
      'markets: [MON_USDC, WETH_USDC]',
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC] }',
      'risk: { maxPosition: "100", maxOrderSize: "10", maxNotional: "500" }',
      options.extra ?? '',
    ].join('\n'),
  );
}

function expectNoKey(output: string): void {
  for (const key of [WALLET_KEY, OWNER_KEY, OTHER_KEY]) expect(output).not.toContain(key.slice(2, 30));
}

describe('clobbot account setup and status on the local venue', () => {
  it('sets up a wallet for its owner end to end; the wallet then trades, and status shows it', async () => {
    venue = await startTestVenue();
    const file = runFile({ venueUrl: venue.url, owner: lower(OWNER) });
    const env = { CLOBBOT_KEY: WALLET_KEY, OWNER_KEY };
    const setup = await runCli(['account', 'setup', '--config', file, '--owner-key-env', 'OWNER_KEY'], env);
    expect(setup.stderr).toBe('');
    expect(setup.code).toBe(0);
    const out = setup.stdout;
    expect(out).toMatch(/^account setup on sim \(chain 31337, relay http:\/\/127\.0\.0\.1:\d+\)\n/);
    expect(out).toContain(`  trading wallet  ${lower(WALLET)} (environment variable CLOBBOT_KEY)\n`);
    expect(out).toContain(`  owner           ${lower(OWNER)} (environment variable OWNER_KEY)\n`);
    expect(out).toMatch(/ {2}account id {6}\d+\n/);
    expect(out).toContain('  funded          the owner had not been set up: credited 300000 MON, 20000 USDC, 5 WETH on the sim (funding.default of');
    expect(out).toContain(`EIP-7702 authorization: ${lower(WALLET)} delegates to 0x65a31520110c40aa3b01d5c2656aa264fa77ab0f (chain 31337, nonce 0)`);
    expect(out).toContain(`AuthorizeAccountSigner: TRADE for ${lower(WALLET)} on the account of ${lower(OWNER)}`);
    expect(out).toMatch(/submitted {7}account_core\.authorize_account_signer_by_sig over REST: BROADCAST tx 0x[0-9a-f]{64} \(SET_CODE\)\n/);
    expect(out).toMatch(/outcome {9}CONFIRMED in block \d+ \(tx 0x[0-9a-f]{64}, read from the receipt\)\n/);
    expect(out).toMatch(new RegExp(`done: ${lower(WALLET)} can trade for the account of ${lower(OWNER)} \\(account \\d+\\) with TRADE\\n$`));
    expectNoKey(out);
    const accountId = BigInt(/account id {6}(\d+)/.exec(out)![1]!);

    // The wallet's signed batch is accepted and executes: the owner was funded and the grant holds.
    const token = await signIn(venue.url, WALLET);
    const market = venue.config.markets[0]!.address as `0x${string}`;
    const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy()] }), bearer(token));
    expect(answer.body).toMatchObject({ status: 'BROADCAST' });
    expect((await waitForReceipt(venue.url, answer.body.txHash)).status).toBe('success');

    const status = await runCli(['account', 'status', '--config', file], { CLOBBOT_KEY: WALLET_KEY });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`  account id      ${accountId}\n`);
    expect(status.stdout).toContain(`  owner           ${lower(OWNER)}\n`);
    expect(status.stdout).toContain('  delegation      yes (EIP-7702, to the trading-wallet delegate)\n');
    expect(status.stdout).toContain('  signer grant    yes: TRADE (other permission bits are not visible through the relay)\n');
    // Balances: free from the chain (the account core's view), locked by the open order, as the venue holds them.
    const model = venue.server.venue;
    const tokens = Object.fromEntries(model.info().tokens.map((each) => [each.symbol, each]));
    const human = (raw: bigint, decimals: number) => new Decimal(raw.toString()).div(new Decimal(10).pow(decimals)).toFixed();
    const usdc = model.balance(accountId, tokens['USDC']!.address);
    const mon = model.balance(accountId, tokens['MON']!.address);
    expect(usdc.locked).toBeGreaterThan(0n);
    expect(status.stdout).toMatch(new RegExp(`\\n {2}balances\\n {4}TOKEN +FREE +LOCKED +TOTAL *\\n {4}MON +${human(mon.available, 18)} +0 +${human(mon.available, 18)} *\\n {4}USDC +${human(usdc.available, 6).replace('.', '\\.')} +${human(usdc.locked, 6).replace('.', '\\.')} +${human(usdc.available + usdc.locked, 6)} *\\n`));
    const balances = await runCli(['account', 'balances', '--config', file, '--json'], { CLOBBOT_KEY: WALLET_KEY });
    expect(balances.stderr).toBe('');
    expect(balances.code).toBe(0);
    const json = JSON.parse(balances.stdout) as { accountId: string; balances: { token: string; free: string; locked: string; total: string }[] };
    expect(json.accountId).toBe(accountId.toString());
    expect(json.balances.find((row) => row.token === 'USDC')).toMatchObject({ free: human(usdc.available, 6), locked: human(usdc.locked, 6), total: human(usdc.available + usdc.locked, 6) });
    expect(json.balances.find((row) => row.token === 'WETH')).toMatchObject({ free: human(model.balance(accountId, tokens['WETH']!.address).available, 18), locked: '0' });
    expect(status.stdout).toMatch(/\n {2}open orders\n {4}MON_USDC {2}1 order\n {6}ORDER ID {2}SIDE {2}PRICE {2}REMAINING {2}SIZE\n {6}\s*\d+ {2}BUY +0\.03 +1 +1\n {4}WETH_USDC {2}none\n$/);
    expectNoKey(status.stdout);

    // Once set up, setup changes nothing (and funds nothing).
    const again = await runCli(['account', 'setup', '--config', file, '--owner-key-env', 'OWNER_KEY'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`done: ${lower(WALLET)} is already delegated and holds TRADE on account ${accountId}; nothing to do\n`);
    expect(again.stdout).not.toContain('funded');
  });

  it('sets up a wallet that owns its own account, with the key in a file', async () => {
    venue = await startTestVenue();
    const tmp = tempDir();
    temps.push(tmp);
    const keyPath = tmp.write('wallet.key', `${OTHER_KEY}\n`);
    chmodSync(keyPath, 0o600);
    const file = runFile({ venueUrl: venue.url, wallet: `{ privateKeyFile: ${keyPath} }` });
    const before = await runCli(['account', 'status', '--config', file], {});
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('  delegation      no (WALLET_NOT_DELEGATED)\n');
    expect(before.stdout).toContain('  signer grant    unknown until the wallet is delegated\n');
    expect(before.stdout).toMatch(/\n {2}balances\n {4}TOKEN +FREE +LOCKED +TOTAL *\n {4}MON +0 +0 +0 *\n {4}USDC +0 +0 +0 *\n {4}WETH +0 +0 +0 *\n/);
    const setup = await runCli(['account', 'setup', '--config', file], {});
    expect(setup.stderr).toBe('');
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain(`  owner           ${lower(OTHER_WALLET)} (the trading wallet itself)\n`);
    expect(setup.stdout).toContain(`  trading wallet  ${lower(OTHER_WALLET)} (key file ${keyPath})\n`);
    expect(setup.stdout).toMatch(/outcome {9}CONFIRMED/);
    const after = await runCli(['account', 'status', '--config', file], {});
    expect(after.stdout).toContain('  signer grant    yes: TRADE');
    expectNoKey(setup.stdout + after.stdout);
  });
});

describe('clobbot account: mistakes in the input', () => {
  it('names a missing key variable, exit 2', async () => {
    venue = await startTestVenue();
    const result = await runCli(['account', 'status', '--config', runFile({ venueUrl: venue.url })], {});
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "error CONFIG_WALLET_KEY_MISSING: environment variable CLOBBOT_KEY is not set: set it to the trading wallet's private key (0x and 64 hex digits)\n",
    });
  });

  it.runIf(process.platform !== 'win32')('refuses a key file readable by others (mode 0644), exit 2, never printing the key', async () => {
    venue = await startTestVenue();
    const tmp = tempDir();
    temps.push(tmp);
    const keyPath = tmp.write('wallet.key', `${WALLET_KEY}\n`);
    chmodSync(keyPath, 0o644);
    const result = await runCli(['account', 'setup', '--config', runFile({ venueUrl: venue.url, wallet: `{ privateKeyFile: ${keyPath} }` })], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error CONFIG_WALLET_KEY_INSECURE: key file ${keyPath} has permissions 0644, too open: a private key must be readable by its owner only (chmod 600 ${keyPath})\n`,
    );
    expectNoKey(result.stderr);
    // The owner key file is held to the same rule.
    chmodSync(keyPath, 0o600);
    const ownerPath = tmp.write('owner.key', OWNER_KEY);
    chmodSync(ownerPath, 0o664);
    const owner = await runCli(['account', 'setup', '--config', runFile({ venueUrl: venue.url, wallet: `{ privateKeyFile: ${keyPath} }` }), '--owner-key-file', ownerPath], {});
    expect(owner.code).toBe(2);
    expect(owner.stderr).toMatch(/^error CONFIG_WALLET_KEY_INSECURE: key file .*owner\.key has permissions 0664, too open/);
    expectNoKey(owner.stdout + owner.stderr);
  });

  it('refuses a malformed key, exit 2, without echoing it', async () => {
    venue = await startTestVenue();
    const file = runFile({ venueUrl: venue.url });
    const almost = WALLET_KEY.slice(0, 60);
    const result = await runCli(['account', 'setup', '--config', file], { CLOBBOT_KEY: almost });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error CONFIG_WALLET_KEY_INVALID: environment variable CLOBBOT_KEY does not hold a private key: expected 0x followed by 64 hex digits (it has 60 characters)\n',
    );
    expect(result.stderr + result.stdout).not.toContain(almost.slice(2, 30));
    const owner = await runCli(['account', 'setup', '--config', file, '--owner-key-env', 'OWNER_KEY'], { CLOBBOT_KEY: WALLET_KEY, OWNER_KEY: 'hunter2-is-not-a-key' });
    expect(owner.code).toBe(2);
    expect(owner.stderr).toMatch(/^error CONFIG_WALLET_KEY_INVALID: environment variable OWNER_KEY does not hold a private key/);
    expect(owner.stderr).not.toContain('hunter2');
    const value = await runCli(['account', 'setup', '--config', file, '--owner-key-env', OWNER_KEY], { CLOBBOT_KEY: WALLET_KEY });
    expect(value.code).toBe(2);
    expect(value.stderr).toMatch(/^error CLI_USAGE: account: --owner-key-env takes the NAME of an environment variable, not a key\n/);
    expectNoKey(value.stderr);
  });

  it('asks for the owner key when the owner is not the wallet, and checks that it is the owner', async () => {
    venue = await startTestVenue();
    const file = runFile({ venueUrl: venue.url, owner: lower(OWNER) });
    const none = await runCli(['account', 'setup', '--config', file], { CLOBBOT_KEY: WALLET_KEY });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error CLI_USAGE: account: the account owner 0x[0-9a-f]{40} \(account\.owner in .*\) is not the trading wallet: pass --owner-key-env or --owner-key-file\n/);
    const wrong = await runCli(['account', 'setup', '--config', file, '--owner-key-env', 'OWNER_KEY'], { CLOBBOT_KEY: WALLET_KEY, OWNER_KEY: OTHER_KEY });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error CONFIG_INVALID: the owner key \(environment variable OWNER_KEY\) is for 0x[0-9a-f]{40}, but .* names account\.owner 0x[0-9a-f]{40}\n/);
  });

  it('refuses mainnet without both opt-ins, exit 2', async () => {
    const simFile = runFile({ venueUrl: 'http://127.0.0.1:9' });
    const flagOnly = await runCli(['account', 'status', '--config', simFile, '--network', 'mainnet', '--allow-mainnet'], { CLOBBOT_KEY: WALLET_KEY });
    expect(flagOnly.code).toBe(2);
    expect(flagOnly.stderr).toMatch(/^error CLI_USAGE: account: mainnet moves real money: it needs allowMainnet: true in .*run\.yaml\n/);
    const tmp = tempDir();
    temps.push(tmp);
    const mainnet = tmp.write(
      'mainnet.yaml',
      [
        'network: mainnet',
        'allowMainnet: true',
        'hosts: { relayUrl: "https://relay.example", relayWsUrl: "wss://relay.example/relay/ws", userUrl: "https://api.example", rpcUrl: "https://rpc.example" }',
        'wallet: { privateKeyEnv: CLOBBOT_KEY }',
        'markets: [MON_USDC]',
        'strategies:',
        '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC] }',
        'risk: { maxPosition: "100", maxOrderSize: "10", maxNotional: "500" }',
      ].join('\n'),
    );
    const fileOnly = await runCli(['account', 'setup', '--config', mainnet], { CLOBBOT_KEY: WALLET_KEY });
    expect(fileOnly.code).toBe(2);
    expect(fileOnly.stderr).toMatch(/^error CLI_USAGE: account: mainnet moves real money: it needs --allow-mainnet on the command line\n/);
    expect(fileOnly.stdout).toBe('');
  });

  it('reports usage mistakes and an unreachable venue', async () => {
    const missing = await runCli(['account', 'status'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error CLI_USAGE: account: --config <run file> is required\n/);
    const action = await runCli(['account', 'frob'], {});
    expect(action.code).toBe(2);
    expect(action.stderr).toMatch(/^error CLI_USAGE: account: unknown action "frob": expected setup, status or balances\n/);
    const down = await runCli(['account', 'status', '--config', runFile({ venueUrl: 'http://127.0.0.1:9' })], { CLOBBOT_KEY: WALLET_KEY });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error HTTP_UNAVAILABLE: the local venue at http:\/\/127\.0\.0\.1:9 cannot be reached: is `clobbot sim` running\?/);
    const help = await runCli(['help', 'account'], {});
    expect(help.stdout).toMatch(/^usage: clobbot account setup {2}--config <run file>/);
  });
});
