/**
 * `clobbot token`, `quote`, `orders` and `market info` against the local venue on loopback
 * (startTestVenue: the real HTTP face of the venue model), run through the CLI as a user runs them:
 * a human table, and `--json` as one JSON object; amounts as decimal strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Address } from '../../src/protocol/encoding.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';
import { runLines } from './run-harness.ts';
import { batchRestBody, bearer, lower, onboard, OWNER, postJson, postText, restingBuy, startTestVenue, waitForReceipt, WALLET, type TestVenue } from '../sim/relay-harness.ts';

let venue: TestVenue;
let market: Address;
/** The order-created events placed for WALLET: more than one page (the venue's default limit is 50). */
const PLACED = 60;
beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20 });
  const { accountId, token } = await onboard(venue);
  market = venue.server.venue.info().markets.find((each) => each.symbol === 'MON_USDC')!.address;
  // No background flow: the book holds only this test's orders, so a quote is the same on every call.
  // Asks to buy from: 5000 MON at 0.036 USDC, 1 WETH at 100 USDC (the owner funded with both).
  for (const [symbol, amount] of [['MON', 10n ** 22n], ['WETH', 10n ** 19n]] as const) {
    const funded = await postJson(`${venue.url}/sim/fund`, { owner: lower(OWNER), token: symbol, amount: amount.toString() });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
  }
  const weth = venue.server.venue.info().markets.find((each) => each.symbol === 'WETH_USDC')!.address;
  for (const [where, quantity, price] of [[market, 500_000n, 360_000n], [weth, 10_000n, 10_000n]] as const) {
    const ask = { ...restingBuy(quantity), side: 'SELL' as const, price };
    const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market: where, orders: [ask] }), bearer(token));
    expect(answer.body.status, JSON.stringify(answer.body)).toBe('BROADCAST');
    expect((await waitForReceipt(venue.url, answer.body.txHash)).status).toBe('success');
  }
  for (let batch = 0; batch < 2; batch += 1) {
    const orders = Array.from({ length: PLACED / 2 }, (_, index) => ({ ...restingBuy(100n + BigInt(batch * 100 + index)), price: 300_000n + BigInt(batch * 1_000 + index * 10) }));
    const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market, orders }), bearer(token));
    expect(answer.body.status, JSON.stringify(answer.body)).toBe('BROADCAST');
    expect((await waitForReceipt(venue.url, answer.body.txHash)).status).toBe('success');
  }
});
afterAll(() => venue.stop());

const MON = '0x06bce055fcf8026862983918c037cfbe87879d73';
const USDC = '0xcdffab23a32a262c0bcd6f78e777a1947367a4cf';
const WETH = '0xac3b5326116bebabc7d838c92e3e28f4a3a05a69';
/** Nothing listens there. */
const DEAD = 'http://127.0.0.1:9';

describe('clobbot token', () => {
  it('prints the metadata as a table and, with --json, as one object', async () => {
    const table = await runCli(['token', MON.toUpperCase().replace('0X', '0x'), '--venue-url', venue.url], {});
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^MON token\n {2}address {6}0x06bce055fcf8026862983918c037cfbe87879d73\n {2}name {9}Monad\n {2}symbol {7}MON\n {2}decimals {5}18\n/);
    const json = await runCli(['token', USDC, '--venue-url', venue.url, '--json'], {});
    expect(json.code).toBe(0);
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ tokenAddress: USDC, symbol: 'USDC', decimals: 6, isErc20: true });
  });

  it('takes the network from a run file, and says what is wrong: unknown token 2, no server 1, bad address 2', async () => {
    const files = tempDir();
    const strategy = ['strategies:', '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, levelSpacingBps: 10, size: "100", maxInventory: "1000" } }'];
    try {
      const good = files.write('venue.yaml', `${[...runLines({ venueUrl: venue.url }), ...strategy].join('\n')}\n`);
      const fromFile = await runCli(['token', WETH, '--config', good, '--json'], {});
      expect(fromFile.code, fromFile.stderr).toBe(0);
      expect(JSON.parse(fromFile.stdout)).toMatchObject({ tokenAddress: WETH, symbol: 'WETH' });
      const dead = files.write('dead.yaml', `${[...runLines({ venueUrl: DEAD }), ...strategy].join('\n')}\n`);
      const unreachable = await runCli(['token', WETH, '--config', dead], {});
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(/^error HTTP_UNAVAILABLE: the token server http:\/\/127\.0\.0\.1:9 cannot be reached/);
      expect((await runCli(['token', WETH, '--config', join(files.dir, 'missing.yaml')], {})).code).toBe(2);
    } finally {
      files.remove();
    }
    const unknown = await runCli(['token', `0x${'12'.repeat(20)}`, '--venue-url', venue.url], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error HTTP_UNEXPECTED_STATUS: .*HTTP 404/);
    expect((await runCli(['token', MON, '--venue-url', DEAD], {})).code).toBe(1);
    const bad = await runCli(['token', 'MON', '--venue-url', venue.url], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error CLI_USAGE: token: <address> must be a token address/);
  });
});

describe('clobbot quote', () => {
  it('quotes a human amount in the token\'s smallest units; the table and the JSON give the same output and route', async () => {
    const json = await runCli(['quote', '--in', USDC, '--out', 'MON', '--amount', '100', '--slippage-bps', '80', '--venue-url', venue.url, '--json'], {});
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    const answer = JSON.parse(json.stdout);
    expect(answer.request).toMatchObject({ tokenIn: USDC, tokenOut: MON, amount: '100000000', slippageTolerance: 80 });
    expect(answer.quote.status).toBe('success');
    // output: raw MON (18 decimals) as a decimal string, and the same in human units.
    expect(answer.quote.output).toMatch(/^[1-9][0-9]*$/);
    expect(BigInt(answer.quote.output)).toBe(BigInt(answer.output.replace('.', '').replace(/^0+/, '')) * 10n ** BigInt(18 - (answer.output.split('.')[1] ?? '').length));
    expect(answer.quote.path.hops).toHaveLength(1);

    // The book does not move without flow: the table shows the same quote.
    const table = await runCli(['quote', '--in', 'usdc', '--out', MON, '--amount', '100', '--slippage-bps', '80', '--venue-url', venue.url], {});
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(`\n  output      ${answer.output} MON (raw ${answer.quote.output})\n`);
    expect(table.stdout).toMatch(/\n {2}min output {2}[0-9.]+ MON at 80 bps slippage\n/);
    const hop = answer.quote.path.hops[0];
    expect(table.stdout).toMatch(new RegExp(`\\n +HOP +MARKET +SIDE +IN +OUT +TAKER FEE\\n +1 +MON_USDC +BUY +[0-9.]+ USDC +${answer.output.replace('.', '\\.')} MON +[0-9.]+ USDC\\n`));
    expect(hop.side).toBe('BUY');
  });

  it('shows a two-hop route (MON -> USDC -> WETH)', async () => {
    // The MON side meets this test's bids (about 100 MON at 0.03 and above), the WETH side its ask.
    const result = await runCli(['quote', '--in', 'MON', '--out', 'WETH', '--amount', '50', '--venue-url', venue.url], {});
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/ {2}route {7}2 hops\n/);
    expect(result.stdout).toMatch(/\n +1 +MON_USDC +SELL +50 MON +[0-9.]+ USDC +[0-9.]+ USDC\n +2 +WETH_USDC +BUY +[0-9.]+ USDC +[0-9.]+ WETH +[0-9.]+ USDC\n/);
  });

  it('refuses bad input (exit 2), reports an error quote (exit 1) and an unreachable server (exit 1)', async () => {
    const unknown = await runCli(['quote', '--in', 'DOGE', '--out', 'MON', '--amount', '1', '--venue-url', venue.url], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error CLI_USAGE: quote: unknown token "DOGE" \(known: MON, USDC, WETH/);
    const precise = await runCli(['quote', '--in', 'USDC', '--out', 'MON', '--amount', '1.0000001', '--venue-url', venue.url], {});
    expect(precise.code).toBe(2);
    expect(precise.stderr).toMatch(/more decimals than USDC's 6/);
    const same = await runCli(['quote', '--in', 'MON', '--out', MON, '--amount', '1', '--venue-url', venue.url], {});
    expect(same.code).toBe(1);
    expect(same.stdout).toMatch(/^quote 1 MON -> MON {2}status error: tokenIn and tokenOut are the same token/);
    expect((await runCli(['quote', '--in', USDC, '--out', MON, '--amount', '1', '--venue-url', DEAD], {})).code).toBe(1);
    expect((await runCli(['quote', '--in', USDC, '--out', MON, '--venue-url', venue.url], {})).code).toBe(2);
  });
});

describe('clobbot orders', () => {
  it('reads every event from --since to now across more than one page, oldest first, in human units', async () => {
    const result = await runCli(['orders', lower(WALLET), '--market', 'MON_USDC', '--since', '1h', '--venue-url', venue.url, '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ user: lower(WALLET), market: 'MON_USDC', marketAddress: market });
    const created = answer.events.filter((event: { eventType: string; side: string }) => event.eventType === 'order-created' && event.side === 'BUY');
    expect(created).toHaveLength(PLACED);
    // The ask on MON_USDC too; the one on WETH_USDC is another market.
    expect(answer.events.filter((event: { side: string }) => event.side === 'SELL')).toMatchObject([{ eventType: 'order-created', size: '5000', price: '0.036' }]);
    // Every order once; sizes and prices as placed (size units of 0.01 MON, price units of 1e-7 USDC).
    expect(new Set(created.map((event: { orderId: string }) => event.orderId)).size).toBe(PLACED);
    const first = created.find((event: { size: string }) => event.size === '1');
    expect(first).toMatchObject({ side: 'BUY', price: '0.03', market: 'MON_USDC' });
    expect(created.map((event: { time: string }) => event.time)).toEqual([...created.map((event: { time: string }) => event.time)].sort());

    const table = await runCli(['orders', lower(WALLET), '--venue-url', venue.url, '--type', 'order-created'], {});
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^order events of ${lower(WALLET)} since \\S+: ${PLACED + 2}\\nTIME +EVENT +MARKET +SIDE +ORDER +SIZE +PRICE +TX\\n`));
    expect(table.stdout).toMatch(/\n\S+Z +order-created +MON_USDC +BUY +\d+ +1 +0\.03 +0x[0-9a-f]{8}…\n/);
    expect(table.stdout.trim().split('\n')).toHaveLength(PLACED + 4);
  });

  it('a time after the events: none; bad input: exit 2', async () => {
    const later = await runCli(['orders', lower(WALLET), '--since', String(Math.floor(Date.now() / 1000) + 3600), '--venue-url', venue.url, '--json'], {});
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(later.stdout).events).toEqual([]);
    expect((await runCli(['orders', lower(WALLET), '--market', 'DOGE_USDC', '--venue-url', venue.url], {})).code).toBe(2);
    expect((await runCli(['orders', lower(WALLET), '--since', 'yesterday', '--venue-url', venue.url], {})).code).toBe(2);
    expect((await runCli(['orders', 'me', '--venue-url', venue.url], {})).code).toBe(2);
  });
});

describe('clobbot market info', () => {
  it('shows tick, minimum and maximum size and fees per market; --json carries the fees too', async () => {
    const table = await runCli(['market', 'info', '--url', venue.url], {});
    expect(table.code, table.stderr).toBe(0);
    // config/sim.yaml: MON_USDC tick 10 units of 1e-7, sizes 100..1e9 units of 0.01 MON; fees in pps / 1000 = bps.
    const mon = venue.server.venue.info().markets.find((each) => each.symbol === 'MON_USDC')!;
    const bps = (pps: bigint) => (Number(pps) / 1000).toString();
    expect(table.stdout).toMatch(/\nSYMBOL +STATUS +BASE +QUOTE +BASE PREC +QUOTE PREC +TICK +MIN SIZE +MAX SIZE +MAKER BPS +TAKER BPS\n/);
    expect(table.stdout).toMatch(new RegExp(`\\nMON_USDC +TRADING +MON +USDC +2 +7 +0\\.000001 +1 +10000000 +${bps(mon.makerFeePps)} +${bps(mon.takerFeePps)}\\n`));
    const json = await runCli(['market', 'info', '--symbol', 'MON_USDC', '--url', venue.url, '--json'], {});
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.symbols).toHaveLength(1);
    expect(parsed.fees).toEqual({ MON_USDC: { makerBps: bps(mon.makerFeePps), takerBps: bps(mon.takerFeePps) } });
    // A symbol in any case is the market, printed canonically.
    const lower = await runCli(['market', 'depth', '--symbol', 'mon_usdc', '--url', venue.url], {});
    expect(lower.code, lower.stderr).toBe(0);
    expect(lower.stdout).toMatch(/^MON_USDC depth /);
  });
});
