import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { formatConfigIssue } from '../../src/config/config-issue.ts';
import { loadConfig, parseConfig } from '../../src/config/load-config.ts';
import {
  resolveRunNetwork,
  runConfigSchema,
  runMarketSymbol,
  runNetworkProblems,
  runRequirementProblems,
  strategyModuleKind,
  type RunConfig,
} from '../../src/config/run-config.ts';

const VALID = `network: sim
wallet:
  privateKeyEnv: CLOBBOT_KEY
markets: [MON_USDC]
strategies:
  - name: mm
    module: strategies/market-maker.ts
    markets: [MON_USDC]
    params:
      spreadBps: 20
risk:
  maxPosition: "100"
  maxOrderSize: "10"
  maxNotional: "500"
`;

function run(text: string, env: Record<string, string> = {}) {
  return parseConfig(text, runConfigSchema, { file: 'run.yaml', env });
}

function issues(text: string, env: Record<string, string> = {}): string[] {
  const result = run(text, env);
  if (result.ok) throw new Error('expected the run file to be invalid');
  return result.issues.map(formatConfigIssue);
}

function valid(text: string): RunConfig {
  const result = run(text);
  if (!result.ok) throw new Error(result.issues.map(formatConfigIssue).join('\n'));
  return result.value;
}

describe('run file schema', () => {
  it('fills the defaults: sim, engine 48 / coalesce, logging info', () => {
    const config = valid(VALID.replace('network: sim\n', ''));
    expect(config.network).toBe('sim');
    expect(config.allowMainnet).toBe(false);
    expect(config.wallet).toEqual({ kind: 'env', name: 'CLOBBOT_KEY' });
    expect(config.engine).toEqual({ maxPendingOutcomes: 48, queuePolicy: 'coalesce' });
    expect(config.logging).toEqual({ level: 'info' });
    expect(config.account).toEqual({});
    expect(config.risk).toMatchObject({ maxPosition: '100', maxOrderSize: '10', maxNotional: '500', priceBandBps: 500 });
    expect(config.strategies[0]!.params).toEqual({ spreadBps: 20 });
  });

  it('reads the shipped config/market-maker.yaml', async () => {
    const result = await loadConfig('config/market-maker.yaml', runConfigSchema, { env: {} });
    if (!result.ok) throw new Error(result.issues.map(formatConfigIssue).join('\n'));
    const config = result.value;
    expect(config.network).toBe('sim');
    expect(config.wallet).toEqual({ kind: 'ephemeral' });
    expect(config.markets).toEqual(['MON_USDC']);
    expect(config.strategies.map((s) => [s.name, s.module, s.markets])).toEqual([['mm', 'strategies/market-maker.ts', ['MON_USDC']]]);
    expect(config.engine.maxPendingOutcomes).toBeLessThan(64);
    expect(config.duration).toBe(60_000);
    expect(typeof config.risk.maxPosition).toBe('string');
  });

  it('refuses an inline private key with a clear message, never echoing it', () => {
    const key = `0x${'1f'.repeat(32)}`;
    const text = VALID.replace('  privateKeyEnv: CLOBBOT_KEY\n', `  privateKey: "${key}"\n`);
    const found = issues(text);
    expect(found).toEqual([
      'run.yaml:3:15 wallet.privateKey: never write a private key in the run file: set privateKeyEnv to the NAME of an environment variable that holds it, or privateKeyFile to a file that holds it',
    ]);
    expect(found.join('\n')).not.toContain(key);
  });

  it('refuses a key given where the variable name belongs', () => {
    const key = `${'ab'.repeat(32)}`;
    const found = issues(VALID.replace('privateKeyEnv: CLOBBOT_KEY', `privateKeyEnv: ${key}`));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^run\.yaml:3:18 wallet\.privateKeyEnv: this is a key, not a variable name/);
    expect(found[0]).not.toContain(key);
  });

  it('needs exactly one wallet source', () => {
    expect(issues(VALID.replace('  privateKeyEnv: CLOBBOT_KEY\n', '  privateKeyEnv: A\n  privateKeyFile: /k\n'))).toEqual([
      'run.yaml:3:3 wallet: set exactly one of privateKeyEnv, privateKeyFile or ephemeral: true',
    ]);
  });

  it('refuses maxPendingOutcomes 64 (the relay closes the socket there)', () => {
    expect(issues(`${VALID}engine:\n  maxPendingOutcomes: 64\n`)).toEqual([
      'run.yaml:16:23 engine.maxPendingOutcomes: expected at most 63: the relay closes the connection when 64 outcomes are pending',
    ]);
    expect(valid(`${VALID}engine:\n  maxPendingOutcomes: 63\n`).engine.maxPendingOutcomes).toBe(63);
  });

  it('refuses mainnet without allowMainnet: true', () => {
    const hosts = 'hosts:\n  relayUrl: https://r.example\n  relayWsUrl: wss://r.example/relay/ws\n  rpcUrl: https://rpc.example\n';
    const text = VALID.replace('network: sim\n', `network: mainnet\n${hosts}`);
    expect(issues(text)).toEqual(['run.yaml:1:10 network: mainnet trades real money: add allowMainnet: true to the run file to opt in']);
    expect(valid(`allowMainnet: true\n${text}`).network).toBe('mainnet');
  });

  it('demands the hosts a network does not publish', () => {
    expect(issues(VALID.replace('network: sim', 'network: testnet'))).toEqual([
      'run.yaml:1:10 network: network testnet has no default exchangeUrl, userUrl, rpcUrl (not published): set hosts.exchangeUrl, hosts.userUrl, hosts.rpcUrl in the run file',
    ]);
    expect(issues(VALID.replace('network: sim', 'network: testnet\nhosts:\n  exchangeUrl: https://md.example'))).toEqual([
      'run.yaml:3:3 hosts: network testnet has no default userUrl, rpcUrl (not published): set hosts.userUrl, hosts.rpcUrl in the run file',
    ]);
  });

  it('checks host URLs and sim-only keys', () => {
    expect(issues(VALID.replace('network: sim', 'network: sim\nhosts:\n  relayWsUrl: https://r.example'))).toEqual([
      'run.yaml:3:15 hosts.relayWsUrl: expected a ws:// or wss:// URL',
    ]);
    const testnet = 'network: testnet\nvenueUrl: http://127.0.0.1:1\nhosts: { exchangeUrl: "https://a.example", userUrl: "https://a.example", rpcUrl: "https://a.example" }';
    expect(issues(VALID.replace('network: sim', testnet))).toEqual(['run.yaml:2:11 venueUrl: venueUrl applies to network sim only']);
  });

  it('cross-checks markets and strategy names', () => {
    const text = VALID.replace('    markets: [MON_USDC]\n', '    markets: [MON_USDC, WETH_USDC]\n').replace(
      'risk:',
      '  - name: mm\n    module: other\n    markets: [MON_USDC]\nrisk:',
    );
    expect(issues(text)).toEqual([
      'run.yaml:8:25 strategies[0].markets[1]: WETH_USDC is not listed under markets',
      'run.yaml:11:11 strategies[1].name: another strategy is already named mm',
    ]);
  });

  it('keeps money out of JS numbers', () => {
    expect(issues(VALID.replace('maxPosition: "100"', 'maxPosition: 0.5'))).toEqual([
      'run.yaml:12:16 risk.maxPosition: expected a non-negative decimal amount such as "1500.25", got a fractional number (quote fractional amounts, e.g. "0.5")',
    ]);
    expect(valid(VALID.replace('maxPosition: "100"', 'maxPosition: 100')).risk.maxPosition).toBe('100');
    expect(valid(`${VALID}account:\n  id: 1099511627775\n`).account.id).toBe(1099511627775n);
    expect(issues(`${VALID}account:\n  id: 1099511627776\n`)).toEqual(['run.yaml:16:7 account.id: expected an integer in 0..1099511627775']);
  });

  it('reports a wrong type and an unknown key where they are', () => {
    expect(issues(`${VALID}engine:\n  maxPendingOutcomes: lots\n  policy: queue\n`)).toEqual([
      'run.yaml:16:23 engine.maxPendingOutcomes: expected a number, got a string',
      'run.yaml:17:3 engine.policy: unknown key (allowed here: maxPendingOutcomes, queuePolicy)',
    ]);
  });

  it('parses durations to milliseconds', () => {
    expect(valid(`${VALID}duration: 90s\n`).duration).toBe(90_000);
    expect(valid(`${VALID}duration: 5m\n`).duration).toBe(300_000);
    expect(issues(`${VALID}duration: soon\n`)[0]).toMatch(/^run\.yaml:15:11 duration: expected a positive duration/);
  });

  it('reads virtual.faults as a fault script, located where it is wrong', () => {
    expect(valid(VALID).virtual.faults).toEqual([]);
    const script = `${VALID}virtual:\n  faults:\n    - at: 12.4s\n      fault: { action: drop-connections }\n    - at: 30000ms\n      fault: { action: answer-unknown, count: 3 }\n`;
    expect(valid(script).virtual.faults).toEqual([
      { at: 12_400, fault: { action: 'drop-connections' } },
      { at: 30_000, fault: { action: 'answer-unknown', count: 3 } },
    ]);
    const bad = `${VALID}virtual:\n  faults:\n    - at: soon\n      fault: { action: drop-connections }\n    - at: 1s\n      fault: { action: answer-unknown, count: 0 }\n`;
    const found = issues(bad);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^run\.yaml:17:11 virtual\.faults\[0\]\.at: expected a time after the start up to 30 days with a unit, .*, got /);
    expect(found[1]).toMatch(/^run\.yaml:20:\d+ virtual\.faults\[1\]\.fault\.count: /);
  });
});

describe('resolveRunNetwork', () => {
  it('resolves sim hosts from the venue actually used', () => {
    const network = resolveRunNetwork(valid(VALID), { venueUrl: 'http://127.0.0.1:4100' });
    expect(network.hosts.exchangeUrl).toBe('http://127.0.0.1:4100');
    expect(network.hosts.relayWsUrl).toBe('ws://127.0.0.1:4100/relay/ws');
  });

  it('refuses --network mainnet unless the file opted in', () => {
    let error: unknown;
    try {
      resolveRunNetwork(valid(VALID), { network: 'mainnet' });
    } catch (caught) {
      error = caught;
    }
    expect(isBaseError(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/allowMainnet: true/);
  });

  it('refuses a network whose trading hosts are missing', () => {
    expect(() => resolveRunNetwork(valid(VALID), { network: 'testnet' })).toThrow(/has no default exchangeUrl, userUrl, rpcUrl/);
  });
});

describe('strategyModuleKind', () => {
  it('tells file paths from package names', () => {
    expect(strategyModuleKind('strategies/market-maker.ts')).toBe('file');
    expect(strategyModuleKind('./my.js')).toBe('file');
    expect(strategyModuleKind('/abs/strategy.mjs')).toBe('file');
    expect(strategyModuleKind('@acme/strategies')).toBe('package');
    expect(strategyModuleKind('clobbot-grid')).toBe('package');
  });
});

describe('markets given whole, account.authNonce, and what a run needs off the sim', () => {
  const HOSTS = 'hosts: { exchangeUrl: "https://md.example", userUrl: "https://api.example", rpcUrl: "https://rpc.example" }';
  const MARKET = [
    '  - symbol: MON_USDC',
    '    address: "0xE790aC3BA8B3bCf3e1E3e6f5B5ae1d3dCa1d3E8A"',
    '    baseToken: { address: "0x00000000000000000000000000000000000000a1", symbol: MON, decimals: 18 }',
    '    quoteToken: { address: "0x00000000000000000000000000000000000000a2", symbol: USDC, decimals: 6 }',
    '    pricePrecision: 10000000',
    '    sizePrecision: "100000000000000000000"',
    '    tickSize: 10',
    '    minSize: 100',
    '    maxSize: "79228162514264337593543950335"',
    '    makerFeePps: 0',
    '    takerFeePps: 2000',
  ].join('\n');
  const testnet = (markets: string, account = 'account: { id: 42 }') =>
    VALID.replace('network: sim\n', `network: testnet\n${HOSTS}\n${account}\n`).replace('markets: [MON_USDC]\n', `markets:\n${markets}\n`);

  it('reads a market given whole: units as bigint (digit strings beyond 2^53), addresses lowercased', () => {
    const config = valid(testnet(MARKET, 'account: { id: 42, authNonce: "115792089237316195423570985008687907853269984665640564039457584007913129639935" }'));
    expect(config.markets).toEqual([
      {
        symbol: 'MON_USDC',
        address: '0xe790ac3ba8b3bcf3e1e3e6f5b5ae1d3dca1d3e8a',
        baseToken: { address: '0x00000000000000000000000000000000000000a1', symbol: 'MON', decimals: 18 },
        quoteToken: { address: '0x00000000000000000000000000000000000000a2', symbol: 'USDC', decimals: 6 },
        pricePrecision: 10_000_000n,
        sizePrecision: 10n ** 20n,
        tickSize: 10n,
        minSize: 100n,
        maxSize: (1n << 96n) - 1n,
        makerFeePps: 0n,
        takerFeePps: 2000n,
      },
    ]);
    expect(config.markets.map(runMarketSymbol)).toEqual(['MON_USDC']);
    expect(config.account).toEqual({ id: 42n, authNonce: (1n << 256n) - 1n });
    expect(runRequirementProblems(config, 'testnet')).toEqual([]);
  });

  it('locates each problem of a market given whole at its field', () => {
    const broken = MARKET.replace('tickSize: 10', 'tickSize: ten').replace('    takerFeePps: 2000', '    takerFeePps: 2000\n    lotSize: 1').replace('decimals: 6', 'decimals: "6"');
    expect(issues(testnet(broken))).toEqual([
      'run.yaml:10:98 markets[0].quoteToken.decimals: expected a number, got a string',
      'run.yaml:13:15 markets[0].tickSize: expected an integer (a YAML integer or a string of digits), got a string',
      'run.yaml:18:5 markets[0].lotSize: unknown key (allowed here: symbol, address, baseToken, quoteToken, pricePrecision, sizePrecision, tickSize, minSize, maxSize, makerFeePps, takerFeePps)',
    ]);
    expect(issues(testnet(MARKET.replace('tickSize: 10', 'tickSize: 4294967296')))).toEqual(['run.yaml:13:15 markets[0].tickSize: expected an integer in 0..4294967295']);
    expect(issues(VALID.replace('markets: [MON_USDC]', 'markets: [MON_USDC, 7]'))[0]).toMatch(
      /^run\.yaml:4:21 markets\[1\]: expected a market symbol such as MON_USDC, or a map giving the whole market \(symbol, address, .*\); got an integer$/,
    );
  });

  it('refuses the same market twice, by symbol or by address', () => {
    const again = MARKET.replace('symbol: MON_USDC', 'symbol: WMON_USDC').replace('symbol: MON,', 'symbol: WMON,');
    expect(issues(testnet(`${MARKET}\n${MARKET}`))).toEqual(['run.yaml:18:5 markets[1]: MON_USDC is listed twice (also markets[0])']);
    expect(issues(testnet(`${MARKET}\n${again}`))).toEqual(['run.yaml:19:14 markets[1].address: markets[0] has the same address']);
  });

  it('account.authNonce is a uint256, absent unless written (the run signs under 0 then)', () => {
    expect(valid(VALID).account.authNonce).toBeUndefined();
    expect(valid(`${VALID}account:\n  authNonce: 7\n`).account.authNonce).toBe(7n);
    expect(issues(`${VALID}account:\n  authNonce: -1\n`)).toEqual([
      'run.yaml:16:14 account.authNonce: expected an integer in 0..115792089237316195423570985008687907853269984665640564039457584007913129639935',
    ]);
  });

  it('off the sim, a run needs every market whole and account.id; the schema leaves both to clobbot run and validate', () => {
    const bare = valid(testnet('  - MON_USDC', 'account: {}'));
    expect(runRequirementProblems(bare, 'testnet')).toEqual([
      { path: ['markets', 0], message: expect.stringMatching(/^on testnet a market is given whole, not by symbol \(no API of testnet publishes .*\): write a map giving the whole market: symbol, address, baseToken/) },
      { path: ['account', 'id'], message: expect.stringMatching(/^required on testnet: the id \(uint40\) of the account/) },
    ]);
    expect(runRequirementProblems(valid(VALID), 'sim')).toEqual([]);
    // A sim file asked to run elsewhere (--network) meets that network's rules.
    expect(runNetworkProblems(valid(`simConfig: config/sim.yaml\n${VALID}`), 'testnet').map((problem) => problem.path)).toEqual([['simConfig'], ['network']]);
    expect(runNetworkProblems(valid(VALID), 'sim')).toEqual([]);
  });
});
