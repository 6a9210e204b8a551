import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  defineStrategy,
  formatConfigIssue,
  isBaseError,
  isStrategyDefinition,
  loadConfig,
  loadRunStrategies,
  loadStrategy,
  runConfigSchema,
  validateStrategyParams,
  z,
  type BaseError,
  type ConfigIssue,
  type YamlSource,
} from 'clobbot';
import { tempDir } from '../support/cli-harness.ts';

const root = new URL('../..', import.meta.url).pathname;
const fixtures = join(root, 'test/strategy/fixtures');

async function rejection(promise: Promise<unknown>): Promise<BaseError> {
  try {
    await promise;
  } catch (error) {
    if (isBaseError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const runFile = (params: string, module = 'strategies/market-maker.ts') => `network: sim
wallet:
  ephemeral: true
markets: [MON_USDC]
strategies:
  - name: mm
    module: ${module}
    markets: [MON_USDC]
    params:
${params}
risk:
  maxPosition: "50000"
  maxOrderSize: "5000"
  maxNotional: "1500"
`;

const goodParams = `      levels: 3
      spreadBps: 20
      size: "2000"
      maxInventory: "40000"`;

const temp = tempDir();
afterAll(() => temp.remove());

async function sourceOf(text: string, name = 'run.yaml'): Promise<{ source: YamlSource; config: z.output<typeof runConfigSchema> }> {
  const file = temp.write(name, text);
  const result = await loadConfig(file, runConfigSchema, { env: {} });
  if (!result.ok) throw new Error(result.issues.map(formatConfigIssue).join('\n'));
  return { source: result.source, config: result.value };
}

describe('defineStrategy', () => {
  it('returns the definition frozen', () => {
    const definition = defineStrategy({ name: 'noop', params: z.strictObject({}), create: () => EMPTY });
    expect(Object.isFrozen(definition)).toBe(true);
    expect(isStrategyDefinition(definition)).toBe(true);
  });

  it('refuses a bad name, a params that is not a zod schema, or a create that is not a function', () => {
    const attempt = (value: unknown) => {
      try {
        defineStrategy(value as Parameters<typeof defineStrategy>[0]);
      } catch (error) {
        if (isBaseError(error) && (error.code as string) === 'STRATEGY_DEFINITION_INVALID') return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(attempt({ name: '', params: z.object({}), create: () => EMPTY })).toMatch(/name must be 1 to 64/);
    expect(attempt({ name: 'x', params: { parse: () => 1 }, create: () => EMPTY })).toMatch(/params must be a zod schema/);
    expect(attempt({ name: 'x', params: z.object({}), create: 'no' })).toMatch(/create must be a function/);
    expect(attempt(null)).toMatch(/expected an object/);
  });
});

describe('loadStrategy', () => {
  it('loads a reference strategy by a path relative to the working directory (a .ts file)', async () => {
    const loaded = await loadStrategy('strategies/market-maker.ts', { cwd: root });
    expect(loaded.definition.name).toBe('market-maker');
    expect(loaded.resolved).toBe(join(root, 'strategies/market-maker.ts'));
  });

  it('takes the export named strategy when there is no default export', async () => {
    const loaded = await loadStrategy(join(fixtures, 'named-strategy.ts'));
    expect(loaded.definition.name).toBe('named');
  });

  it('reports a missing file with the path it looked at', async () => {
    const error = await rejection(loadStrategy('strategies/nope.ts', { cwd: root }));
    expect(error.code).toBe('STRATEGY_MODULE_NOT_FOUND');
    expect(error.message).toContain('strategy module strategies/nope.ts: no such file');
    expect(error.message).toContain(join(root, 'strategies/nope.ts'));
    expect(error.details).toMatchObject({ module: 'strategies/nope.ts', path: join(root, 'strategies/nope.ts') });
  });

  it('loads a package from the working directory when clobbot cannot see it', async () => {
    const zod = join(root, 'node_modules/zod/index.js');
    temp.write('package.json', '{"name":"user-project","private":true}');
    const dir = join(temp.dir, 'node_modules/user-strategy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name":"user-strategy","type":"module","main":"index.js"}');
    writeFileSync(
      join(dir, 'index.js'),
      `import { z } from ${JSON.stringify(zod)};\nexport default { name: 'user', params: z.strictObject({}), create: () => undefined };\n`,
    );
    const loaded = await loadStrategy('user-strategy', { cwd: temp.dir });
    expect(loaded.definition.name).toBe('user');
    expect(loaded.resolved).toBe('user-strategy');
  });

  it('reports a missing package', async () => {
    const error = await rejection(loadStrategy('clobbot-no-such-strategy-package', { cwd: root }));
    expect(error.code).toBe('STRATEGY_MODULE_NOT_FOUND');
    expect(error.message).toMatch(/clobbot-no-such-strategy-package: no such package/);
  });

  it('refuses a module that does not export a strategy, naming the module and its path', async () => {
    const notStrategy = await rejection(loadStrategy(join(fixtures, 'not-a-strategy.ts')));
    expect(notStrategy.code).toBe('STRATEGY_MODULE_INVALID');
    expect(notStrategy.message).toMatch(/does not export a strategy made with defineStrategy: params must be a zod schema.*create must be a function/);
    expect(notStrategy.details).toMatchObject({ path: join(fixtures, 'not-a-strategy.ts') });

    const noExports = await rejection(loadStrategy(join(fixtures, 'no-exports.ts')));
    expect(noExports.code).toBe('STRATEGY_MODULE_INVALID');
    expect(noExports.message).toMatch(/has no default export and no export named strategy \(exports: unrelated\)/);
  });

  it('refuses a module that throws while loading, with the cause', async () => {
    const error = await rejection(loadStrategy(join(fixtures, 'throws-on-load.ts')));
    expect(error.code).toBe('STRATEGY_MODULE_INVALID');
    expect(error.message).toMatch(/failed to load: strategy module exploded at load/);
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('validateStrategyParams and loadRunStrategies', () => {
  it("validates config/market-maker.yaml's params with the market maker's schema", async () => {
    const result = await loadConfig(join(root, 'config/market-maker.yaml'), runConfigSchema, { env: {} });
    if (!result.ok) throw new Error('config/market-maker.yaml is invalid');
    const [mm] = await loadRunStrategies(result.source, result.value, { cwd: root });
    expect(mm).toMatchObject({ name: 'mm', module: 'strategies/market-maker.ts', markets: ['MON_USDC'] });
    expect(mm!.params).toEqual({
      levels: 3,
      spreadBps: 8,
      levelSpacingBps: 10,
      size: '2000',
      priceSource: 'mid',
      targetInventory: '0',
      maxInventory: '40000',
      skewBps: 15,
      requoteThresholdBps: 4,
    });
    expect(Object.isFrozen(mm!.params)).toBe(true);
  });

  it('locates bad params at file:line:col of the run file', async () => {
    const { source, config } = await sourceOf(runFile(`      levels: 3\n      spreadBps: "wide"\n      size: "2000"\n      maxInventory: "40000"\n      colour: red`));
    const error = await rejection(loadRunStrategies(source, config, { cwd: root }));
    expect(error.code).toBe('CONFIG_INVALID');
    const issues = (error.details as { issues: ConfigIssue[] }).issues.map(formatConfigIssue);
    expect(issues).toEqual([
      `${source.file}:11:18 strategies[0].params.spreadBps: expected a number, got a string`,
      expect.stringMatching(new RegExp(`^${source.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:14:7 strategies\\[0\\]\\.params\\.colour: unknown key`)),
    ]);
    expect(error.message).toContain(`${source.file}:11:18 strategies[0].params.spreadBps`);
  });

  it('locates a missing param at the params map, and validates absent params as {}', async () => {
    const { source } = await sourceOf(runFile(`      levels: 3\n      spreadBps: 20\n      size: "2000"`), 'missing.yaml');
    const { definition } = await loadStrategy('strategies/market-maker.ts', { cwd: root });
    const result = validateStrategyParams(definition, source, 0);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatConfigIssue)).toEqual([`${source.file}:10:7 strategies[0].params.maxInventory: required: expected a non-negative decimal amount such as "1500.25"`]);

    const noParams = await sourceOf(runFile('').replace('    params:\n\n', ''), 'no-params.yaml');
    const empty = validateStrategyParams(definition, noParams.source, 0);
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.issues.map((issue) => issue.path.join('.'))).toContain('strategies.0.params.levels');
  });

  it('locates a module that cannot be loaded at its module value', async () => {
    const { source, config } = await sourceOf(runFile(goodParams, 'strategies/missing.ts'), 'bad-module.yaml');
    const error = await rejection(loadRunStrategies(source, config, { cwd: root }));
    expect(error.code).toBe('STRATEGY_MODULE_NOT_FOUND');
    expect(error.message).toMatch(new RegExp(`^${source.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:13 strategies\\[0\\]\\.module: strategy module strategies/missing\\.ts: no such file`));
  });
});
