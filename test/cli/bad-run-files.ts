/**
 * The bad run files of the `clobbot run` tests (test/cli/run-bad-input.test.ts, the key and sim config
 * refusals), as data: test/cli/validate-as-run.test.ts runs each through `clobbot run` and through
 * `clobbot validate` and expects the same error code and the same file:line:col locations.
 */
import { chmodSync } from 'node:fs';
import { runLines, type Workspace } from './run-harness.ts';

export interface BadRunFile {
  /** What is wrong. */
  readonly what: string;
  /** Writes the file (and whatever it names) into the workspace; returns its path. */
  make(ws: Workspace, sim: string): string;
  readonly env?: Record<string, string>;
  /** The error code both commands must give. */
  readonly code: string;
  /** Whether the problem is located in the run file (file:line:col). */
  readonly located: boolean;
}

const MM = 'module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" }';

function withStrategy(ws: Workspace, sim: string, name: string, options: { readonly wallet?: string; readonly strategy?: string; readonly replace?: (line: string) => string } = {}): string {
  const lines = runLines({ simConfig: sim, ...(options.wallet === undefined ? {} : { wallet: options.wallet }) }).map(options.replace ?? ((line) => line));
  return ws.runFile(name, [...lines, 'strategies:', `  - { name: mm, ${options.strategy ?? MM} }`]);
}

export const BAD_RUN_FILES: readonly BadRunFile[] = [
  {
    what: 'an invalid run file (a fraction, a limit, an unknown key, a strategy market not listed)',
    make: (ws) =>
      ws.runFile('invalid.yaml', [
        'network: sim',
        'wallet: { ephemeral: true }',
        'markets: [MON_USDC]',
        'strategies:',
        '  - { name: mm, module: strategies/market-maker.ts, markets: [WETH_USDC] }',
        'risk: { maxPosition: 0.5, maxOrderSize: "1", maxNotional: "1" }',
        'engine: { maxPendingOutcomes: 64 }',
        'bogus: 1',
      ]),
    code: 'CONFIG_INVALID',
    located: true,
  },
  { what: 'a YAML syntax error', make: (ws) => ws.runFile('broken.yaml', ['network: sim', 'markets: [MON_USDC', '']), code: 'CONFIG_YAML_SYNTAX', located: true },
  {
    what: 'strategy params that do not match its schema',
    make: (ws, sim) =>
      ws.runFile('params.yaml', [
        ...runLines({ simConfig: sim }),
        'strategies:',
        '  - name: mm',
        '    module: strategies/market-maker.ts',
        '    markets: [MON_USDC]',
        '    params:',
        '      levels: 2',
        '      spreadBps: "wide"',
        '      colour: blue',
      ]),
    code: 'CONFIG_INVALID',
    located: true,
  },
  {
    what: 'a strategy module that does not exist',
    make: (ws, sim) => withStrategy(ws, sim, 'module.yaml', { strategy: 'module: strategies/missing.ts, markets: [MON_USDC]' }),
    code: 'STRATEGY_MODULE_NOT_FOUND',
    located: true,
  },
  {
    what: 'a strategy module that exports no strategy',
    make: (ws, sim) => withStrategy(ws, sim, 'empty.yaml', { strategy: `module: ${ws.strategy('empty.ts', 'export const answer = 42;\n')}, markets: [MON_USDC]` }),
    code: 'STRATEGY_MODULE_INVALID',
    located: true,
  },
  {
    what: 'a market the sim config does not list',
    make: (ws, sim) => withStrategy(ws, sim, 'market.yaml', { replace: (line) => (line === 'markets: [MON_USDC]' ? 'markets: [MON_USDC, WETH_USDC]' : line) }),
    code: 'CONFIG_INVALID',
    located: true,
  },
  {
    what: 'a key variable that is not set',
    make: (ws, sim) => withStrategy(ws, sim, 'key-env.yaml', { wallet: '{ privateKeyEnv: CLOBBOT_TEST_UNSET_KEY }' }),
    code: 'CONFIG_WALLET_KEY_MISSING',
    located: false,
  },
  {
    what: 'a key file that does not exist',
    make: (ws, sim) => withStrategy(ws, sim, 'key-missing.yaml', { wallet: `{ privateKeyFile: ${ws.dir}/no-such.key }` }),
    code: 'CONFIG_WALLET_KEY_MISSING',
    located: false,
  },
  {
    what: 'a key file others can read',
    make(ws, sim) {
      const key = ws.runFile('open.key', [`0x${'11'.repeat(32)}`]);
      chmodSync(key, 0o644);
      return withStrategy(ws, sim, 'key-open.yaml', { wallet: `{ privateKeyFile: ${key} }` });
    },
    code: 'CONFIG_WALLET_KEY_INSECURE',
    located: false,
  },
  {
    what: 'a simConfig file that does not exist',
    make: (ws) => withStrategy(ws, `${ws.dir}/no-such-sim.yaml`, 'sim-missing.yaml'),
    code: 'CONFIG_FILE_UNREADABLE',
    located: false,
  },
  {
    what: 'a simConfig file that is invalid',
    make: (ws) => withStrategy(ws, ws.runFile('bad-sim.yaml', ['chainId: 31337', 'blockMs: -5', 'tokens: []', 'markets: []']), 'sim-invalid.yaml'),
    code: 'CONFIG_INVALID',
    located: true,
  },
];
