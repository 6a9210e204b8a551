/**
 * `clobbot run` with bad input: strategies that throw, emit malformed intents or never emit, and
 * run files that are wrong. Runtime failures stop the run, cancel its orders and exit 1 with a
 * clear message; input mistakes exit 2 with located errors; never a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { expectFailedStrategyRun, hasStackTrace, restingThen, runLines, summaryCounts, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let sim: string;
beforeAll(() => {
  ws = workspace();
  sim = ws.simConfig();
});
afterAll(() => ws.remove());

function runFileFor(name: string, module: string, extra: readonly string[] = [], duration = '4s', strategyFields = ''): string {
  return ws.runFile(`${name}.yaml`, [...runLines({ simConfig: sim, duration, extra }), 'strategies:', `  - { name: ${name}, module: ${module}, markets: [MON_USDC]${strategyFields} }`]);
}

describe('clobbot run: strategies that fail', () => {
  it('a strategy whose create throws: STRATEGY_FAILED, exit 1, a summary', async () => {
    const module = ws.strategy(
      'throws.ts',
      `import { defineStrategy, z } from 'clobbot';\nexport default defineStrategy({ name: 'throws', params: z.strictObject({}), create: () => { throw new Error('boom in create'); } });\n`,
    );
    const result = await runCli(['run', runFileFor('throws', module)], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error STRATEGY_FAILED: strategy throws (${module}) failed to start: boom in create\n`);
    expect(result.stdout).toContain('stopped because strategy throws failed (STRATEGY_FAILED)');
    expect(summaryCounts(result.stdout).openAfterStop).toBe(0);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('a strategy whose stream errors after placing: its order is cancelled, exit 1', async () => {
    const module = ws.strategy('fails-later.ts', restingThen(`timer(1500, ctx.clock.scheduler).pipe(mergeMap(() => throwError(() => new Error('lost my way'))))`));
    const result = await runCli(['run', runFileFor('later', module, [], '10s')], {});
    expectFailedStrategyRun(result, module);
  });

  it('a malformed intent (slot 62) is refused before the engine: STRATEGY_INTENT_INVALID, orders cancelled, exit 1', async () => {
    const module = ws.strategy(
      'bad-slot.ts',
      restingThen(`timer(1000, ctx.clock.scheduler).pipe(map(() => ({
        type: 'ReplaceSlots', market: market.spec.address, purpose: 'test',
        ops: [{ slotIdx: 62, kind: 'place', side: 'SELL', postOnly: true, price: 1000000n, size: 50000n, minSizeAfterBlock: 0n }],
      })))`),
    );
    const result = await runCli(['run', runFileFor('slots', module, [], '10s')], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`error STRATEGY_INTENT_INVALID: strategy slots \\(${module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) emitted an invalid ReplaceSlots intent: .*slot`));
    const counts = summaryCounts(result.stdout);
    expect(counts.placed).toBe(1);
    expect(counts.openAfterStop).toBe(0);
    // The resting order, then the stop's cancel: the malformed intent never reached the engine.
    expect(result.stdout).toMatch(/intents {5}2 \(confirmed 2, reverted or rejected 0, refused 0\)/);
    expect(result.stdout).toContain('  strategy slots: failed (STRATEGY_INTENT_INVALID), 2 intents\n');
  });

  it('a price off the tick is refused before the engine', async () => {
    const module = ws.strategy(
      'off-tick.ts',
      `import { map, take } from 'rxjs';
import { defineStrategy, z } from 'clobbot';
export default defineStrategy({ name: 'off-tick', params: z.strictObject({}), create: (ctx) => {
  const market = [...ctx.markets.values()][0];
  return market.feed.mid$.pipe(take(1), map(() => ({ type: 'PlaceAndCancel', market: market.spec.address, purpose: 'test', cancelSlots: [],
    orders: [{ side: 'BUY', price: 300001n, size: 50000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n }] })));
} });
`,
    );
    const result = await runCli(['run', runFileFor('tick', module)], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error STRATEGY_INTENT_INVALID: strategy tick');
    expect(result.stderr).toContain('orders[0]: price 300001 is not on the tick 10');
    expect(summaryCounts(result.stdout).placed).toBe(0);
  });

  describe('a strategy that never emits', () => {
    let silent: string;
    beforeAll(() => {
      silent = ws.strategy('silent.ts', `import { NEVER } from 'rxjs';\nimport { defineStrategy, z } from 'clobbot';\nexport default defineStrategy({ name: 'silent', params: z.strictObject({}), create: () => NEVER });\n`);
    });

    it('is warned at half the run, and fails it at the end: STRATEGY_IDLE, exit 1', async () => {
      const result = await runCli(['run', runFileFor('quiet', silent, [], '3s')], {});
      expect(result.code, result.stderr.slice(-2000)).toBe(1);
      expect(result.stderr).toMatch(/"level":40,.*"strategy":"quiet".*has emitted no intent in [12] s/);
      expect(result.stderr).toMatch(/error STRATEGY_IDLE: strategy quiet \(.*silent\.ts\) emitted no intent in 3 s\n/);
      expect(result.stdout).toContain('  strategy quiet: emitted no intent, 0 intents\n');
      expect(hasStackTrace(result.stderr)).toBe(false);
    });

    it('stops the run at its idleTimeout, cancelling the other strategies\' orders', async () => {
      const resting = ws.strategy('resting-forever.ts', restingThen('NEVER'));
      const file = ws.runFile('idle-timeout.yaml', [
        ...runLines({ simConfig: sim, duration: '30s' }),
        'strategies:',
        `  - { name: quiet, module: ${silent}, markets: [MON_USDC], idleTimeout: 2s }`,
        `  - { name: rests, module: ${resting}, markets: [MON_USDC] }`,
      ]);
      const started = Date.now();
      const result = await runCli(['run', file], {});
      expect(result.code, result.stderr.slice(-2000)).toBe(1);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(result.stdout).toContain('stopped because strategy quiet failed (STRATEGY_IDLE)');
      expect(result.stderr).toContain('error STRATEGY_IDLE: strategy quiet');
      const counts = summaryCounts(result.stdout);
      expect(counts.placed).toBe(1);
      expect(counts.openAfterStop).toBe(0);
    });

    it('is fine with idleTimeout: off', async () => {
      const result = await runCli(['run', runFileFor('quiet-ok', silent, [], '2s', ', idleTimeout: off')], {});
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(result.stdout).toContain('  strategy quiet-ok: emitted no intent, 0 intents\n');
    });
  });
});

describe('clobbot run: mistakes in the input (exit 2, located)', () => {
  it('an invalid run file: every problem at file:line:col', async () => {
    const file = ws.runFile('invalid.yaml', [
      'network: sim',
      'wallet: { ephemeral: true }',
      'markets: [MON_USDC]',
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [WETH_USDC] }',
      'risk: { maxPosition: 0.5, maxOrderSize: "1", maxNotional: "1" }',
      'engine: { maxPendingOutcomes: 64 }',
      'bogus: 1',
    ]);
    const result = await runCli(['run', file], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error CONFIG_INVALID: .*invalid\.yaml: \d+ problems\n/);
    expect(result.stderr).toContain(`${file}:6:22 risk.maxPosition: `);
    expect(result.stderr).toContain(`${file}:7:31 engine.maxPendingOutcomes: expected at most 63`);
    expect(result.stderr).toContain(`${file}:8:1 bogus: unknown key`);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('a YAML syntax error and a missing file', async () => {
    const broken = ws.runFile('broken.yaml', ['network: sim', 'markets: [MON_USDC', '']);
    const syntax = await runCli(['run', broken], {});
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(new RegExp(`^error CONFIG_YAML_SYNTAX: .*\\n {2}${broken}:\\d+:\\d+`));
    const missing = await runCli(['run', `${ws.dir}/nope.yaml`], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error CONFIG_FILE_UNREADABLE: /);
  });

  it('strategy params that do not match its schema, located in the run file', async () => {
    const file = ws.runFile('params.yaml', [
      ...runLines({ simConfig: sim }),
      'strategies:',
      '  - name: mm',
      '    module: strategies/market-maker.ts',
      '    markets: [MON_USDC]',
      '    params:',
      '      levels: 2',
      '      spreadBps: "wide"',
      '      colour: blue',
    ]);
    const result = await runCli(['run', file], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:14:18 strategies[0].params.spreadBps: expected a number`);
    expect(result.stderr).toContain(`${file}:15:7 strategies[0].params.colour: unknown key`);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('a strategy module that does not exist, or exports no strategy, located at its module', async () => {
    const file = ws.runFile('module.yaml', [...runLines({ simConfig: sim }), 'strategies:', '  - { name: mm, module: strategies/missing.ts, markets: [MON_USDC] }']);
    const result = await runCli(['run', file], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error STRATEGY_MODULE_NOT_FOUND: ${file}:9:25 strategies\\[0\\]\\.module: strategy module strategies/missing\\.ts: no such file`));

    const empty = ws.strategy('empty.ts', 'export const answer = 42;\n');
    const other = ws.runFile('empty.yaml', [...runLines({ simConfig: sim }), 'strategies:', `  - { name: mm, module: ${empty}, markets: [MON_USDC] }`]);
    const invalid = await runCli(['run', other], {});
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error STRATEGY_MODULE_INVALID: .*has no default export and no export named strategy \(exports: answer\)/);
  });

  it('a market the venue does not list, located at markets', async () => {
    const file = ws.runFile('market.yaml', [
      ...runLines({ simConfig: sim }).map((line) => (line === 'markets: [MON_USDC]' ? 'markets: [MON_USDC, WETH_USDC]' : line)),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }',
    ]);
    const result = await runCli(['run', file], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:4:21 markets[1]: WETH_USDC is not a market of the venue (${sim} lists MON_USDC)`);
  });

  it('usage mistakes, another network, mainnet without both opt-ins', async () => {
    const file = ws.runFile('net.yaml', [
      ...runLines({ simConfig: sim }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }',
    ]);
    const cases: [string[], RegExp][] = [
      [['run'], /^error CLI_USAGE: run: expected <file>, got 0 arguments\n/],
      [['run', file, '--duration', 'soon'], /^error CLI_USAGE: run: --duration must be a positive number of seconds/],
      [['run', file, '--network', 'moon'], /^error NETWORK_UNKNOWN: unknown network "moon"/],
      [['run', file, '--network', 'mainnet'], /^error CLI_USAGE: run: mainnet moves real money: it needs allowMainnet: true in .* and --allow-mainnet on the command line\n/],
      [['run', file, '--network', 'testnet'], /^error CONFIG_INVALID: .*testnet/],
    ];
    for (const [argv, expected] of cases) {
      const result = await runCli(argv, {});
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(expected);
    }
  });
});
