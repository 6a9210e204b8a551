/**
 * The published package, as a user gets it: `npm pack`, then an install of the tarball into a scratch
 * project in a temp directory outside the repository, and there: `clobbot`, `clobbot/strategy` and
 * `clobbot/testing` import in plain `node` (no TypeScript loader), a strategy written against the light
 * entry `clobbot/strategy` type-checks with the repository's `tsc`, and `npx clobbot validate` /
 * `npx clobbot run --duration 5s` work on a run file whose TypeScript strategy lives in the scratch
 * project (sim network, in-process venue, ephemeral wallet).
 *
 * Offline: the scratch project gets a package-lock.json made from the repository's own (every package
 * clobbot depends on, at the versions and integrity the repository installed, plus fast-check and vitest
 * for `clobbot/testing`) and the tarball, and `npm ci --offline` takes them from npm's cache, which the
 * repository's own `npm ci` filled. It runs on the built dist/ (vitest's global setup rebuilds it).
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const execFileAsync = promisify(execFile);

interface LockEntry {
  readonly version?: string;
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly [key: string]: unknown;
}

/** The environment of a child npm or node: the parent's minus npm's own `npm_*` settings (`npm test` sets them). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') && key !== 'NODE_OPTIONS' && !key.startsWith('VITEST')));
}

async function run(file: string, args: readonly string[], options: ExecFileOptions & { cwd: string }): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { env: cleanEnv(), maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', ...options });
    return { stdout: String(stdout), stderr: String(stderr) };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: unknown; stderr?: unknown };
    throw new Error(`${file} ${args.join(' ')} failed (${String(failed.code)}):\n${String(failed.stdout ?? '')}\n${String(failed.stderr ?? '')}`, { cause: error });
  }
}

/** The lock entries (path -> entry) that `roots` need, walked through the repository's package-lock.json as npm resolves them. */
function lockClosure(packages: Record<string, LockEntry>, roots: readonly string[]): Map<string, LockEntry> {
  const found = new Map<string, LockEntry>();
  const locate = (from: string, name: string): string | undefined => {
    for (let base = from; ; ) {
      const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
      if (packages[candidate] !== undefined) return candidate;
      if (base === '') return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut === -1 ? '' : base.slice(0, cut);
    }
  };
  const visit = (from: string, name: string, optional: boolean): void => {
    const path = locate(from, name);
    if (path === undefined) {
      if (optional) return;
      throw new Error(`package-lock.json has no ${name} (needed from ${from || 'the root'})`);
    }
    if (found.has(path)) return;
    const entry = packages[path]!;
    found.set(path, entry);
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(path, dependency, false);
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(path, dependency, true);
    for (const dependency of Object.keys(entry.peerDependencies ?? {})) visit(path, dependency, entry.peerDependenciesMeta?.[dependency]?.optional === true);
  };
  for (const name of roots) visit('', name, false);
  return found;
}

const STRATEGY = `import { combineLatest, filter, map, merge } from 'rxjs';
import { createQuoteManager, decimalAmount, defineStrategy, isStrategyDefinition, priceAtOffset, toUnits, z } from 'clobbot/strategy';

const params = z.strictObject({ spreadBps: z.number().min(0), size: decimalAmount({ positive: true }) });

const strategy = defineStrategy({
  name: 'scratch-one-level',
  params,
  create: (ctx) =>
    merge(
      ...[...ctx.markets.values()].map(({ spec, feed, state$ }) => {
        const size: bigint = toUnits(ctx.params.size, spec.sizePrecision, 'down');
        const quotes = createQuoteManager({ market: spec, threshold: { bps: 2 } });
        return combineLatest([feed.book$, state$]).pipe(
          map(([book, state]) => {
            const mid = book.mid();
            const bid = mid && priceAtOffset(mid, ctx.params.spreadBps, 'BUY', spec.tickSize);
            const ask = mid && priceAtOffset(mid, ctx.params.spreadBps, 'SELL', spec.tickSize);
            return quotes.update(state, { bids: bid ? [{ price: bid, size }] : [], asks: ask ? [{ price: ask, size }] : [] });
          }),
          filter((intent) => intent !== undefined),
        );
      }),
    ),
});
if (!isStrategyDefinition(strategy)) throw new Error('not a strategy');
export default strategy;
`;

const RUN_FILE = `network: sim
simConfig: node_modules/clobbot/config/sim.yaml
wallet:
  ephemeral: true
markets: [MON_USDC]
strategies:
  - name: one
    module: strategies/one-level.ts
    markets: [MON_USDC]
    idleTimeout: off
    params:
      spreadBps: 10
      size: "1000"
risk:
  maxPosition: "50000"
  maxOrderSize: "5000"
  maxNotional: "1500"
  priceBandBps: 300
  maxOrdersPerSecond: 20
  maxOpenOrders: 12
  killSwitch:
    file: .clobbot-stop
    maxDrawdown: "200"
    maxErrorRate: 0.2
duration: 60s
`;

describe('the npm package (npm pack, installed offline into a scratch project)', () => {
  let work: string;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'clobbot-package-'));
    project = join(work, 'project');
    mkdirSync(join(project, 'strategies'), { recursive: true });
    // dist/ is current (vitest's global setup): pack without running `prepare` again.
    const packed = JSON.parse((await run(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT })).stdout) as { filename: string }[];
    tarball = join(work, packed[0]!.filename);

    const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { dependencies: Record<string, string>; version: string };
    const closure = lockClosure(repoLock.packages, [...Object.keys(manifest.dependencies), 'fast-check', 'vitest']);
    const spec = `file:${tarball}`;
    const packages: Record<string, unknown> = {
      '': { name: 'scratch', dependencies: { clobbot: spec, 'fast-check': '*', vitest: '*' } },
      'node_modules/clobbot': {
        version: manifest.version,
        resolved: spec,
        integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
        license: manifest['license'],
        dependencies: manifest.dependencies,
        peerDependencies: manifest['peerDependencies'],
        peerDependenciesMeta: manifest['peerDependenciesMeta'],
        bin: manifest['bin'],
        engines: manifest['engines'],
      },
    };
    for (const [path, entry] of [...closure].sort(([a], [b]) => a.localeCompare(b))) {
      const { dev: _dev, ...rest } = entry;
      packages[path] = rest;
    }
    writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'scratch', private: true, type: 'module', dependencies: { clobbot: spec, 'fast-check': '*', vitest: '*' } }, null, 2)}\n`);
    writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify({ name: 'scratch', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
    await run(NPM, ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });

    writeFileSync(join(project, 'strategies', 'one-level.ts'), STRATEGY);
    writeFileSync(join(project, 'run.yaml'), RUN_FILE);
    writeFileSync(
      join(project, 'tsconfig.json'),
      `${JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ['node'],
            typeRoots: [join(ROOT, 'node_modules/@types')],
          },
          include: ['strategies'],
        },
        null,
        2,
      )}\n`,
    );
  }, 180_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('packs only what a user needs: dist/, bin/clobbot.js, the strategies and config examples, README', async () => {
    const { stdout } = await run(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files).toContain('bin/clobbot.js');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/index.js.map');
    expect(files).toContain('dist/testing/index.js');
    expect(files).toContain('dist/strategy/index.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('config/sim.yaml');
    expect(files).toContain('strategies/market-maker.ts');
    const allowed = /^(dist\/.+\.(js|d\.ts|js\.map)|bin\/clobbot\.js|strategies\/[^/]+\.(ts|md)|config\/[^/]+\.yaml|README\.md|LICENSE|package\.json)$/;
    expect(files.filter((file) => !allowed.test(file))).toEqual([]);
    const forbidden = /(^|\/)(test|tests|fixtures|bench|src|node_modules|\.ci|\.clobbot|coverage|backtests)\/|\.test\.|(^|\/)\.env|\.key$|\.pem$|tsconfig|vitest\.|\.jsonl$/i;
    expect(files.filter((file) => forbidden.test(file))).toEqual([]);
    // Outside the compiled code (where `core/secrets.js` is the scrubber of secrets), nothing named like a secret.
    expect(files.filter((file) => !file.startsWith('dist/') && /secret|private|\.key|journal/i.test(file))).toEqual([]);
    // No key material in the packed config examples: keys come from the environment or a file.
    for (const file of files.filter((path) => path.startsWith('config/'))) expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/0x[0-9a-fA-F]{64}/);
  });

  it('imports clobbot, clobbot/strategy and clobbot/testing in plain node, without a TypeScript loader', async () => {
    const script = [
      "const api = await import('clobbot');",
      "const strategy = await import('clobbot/strategy');",
      "const testing = await import('clobbot/testing');",
      'console.log(JSON.stringify({ api: Object.keys(api).length, testing: Object.keys(testing).length, slots: api.MAKER_SLOTS, define: typeof api.defineStrategy, check: typeof testing.checkStrategy, bars: typeof api.buildBars, url: import.meta.resolve("clobbot"), same: strategy.defineStrategy === api.defineStrategy && strategy.BaseError === api.BaseError, strategyUrl: import.meta.resolve("clobbot/strategy") }));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    const seen = JSON.parse(stdout) as { api: number; testing: number; slots: number; define: string; check: string; bars: string; url: string; same: boolean; strategyUrl: string };
    expect(seen.slots).toBe(62);
    expect(seen.define).toBe('function');
    expect(seen.check).toBe('function');
    expect(seen.bars).toBe('function');
    expect(seen.api).toBeGreaterThan(100);
    expect(seen.testing).toBeGreaterThan(30);
    expect(seen.url).toMatch(/\/project\/node_modules\/clobbot\/dist\/index\.js$/);
    expect(seen.strategyUrl).toMatch(/\/project\/node_modules\/clobbot\/dist\/strategy\/index\.js$/);
    expect(seen.same).toBe(true);
  });

  it("type-checks a strategy written against the public API with the repository's tsc (declarations included)", async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
    // The declarations carry real types (not `any`): a wrong one is an error.
    mkdirSync(join(project, 'wrong'), { recursive: true });
    writeFileSync(join(project, 'wrong', 'wrong.ts'), "import { toUnits } from 'clobbot';\nimport { checkStrategy } from 'clobbot/testing';\nexport const units: string = toUnits('1', 1000n, 'down');\nexport const check: number = checkStrategy;\n");
    const config = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(project, 'tsconfig.wrong.json'), JSON.stringify({ ...config, include: ['wrong'] }));
    const failed = await run(process.execPath, [tsc, '-p', 'tsconfig.wrong.json'], { cwd: project }).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/wrong\.ts\(3,14\): error TS2322: Type 'bigint' is not assignable to type 'string'/);
    expect(failed).toMatch(/wrong\.ts\(4,14\): error TS2322/);
    expect(failed.match(/error TS/g)).toHaveLength(2);
  });

  it('npx clobbot --version, help, and validate of a run file whose strategy lives in the project', async () => {
    const version = await run(NPM, ['exec', '--offline', '--no', '--', 'clobbot', '--version'], { cwd: project });
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    const help = await run(NPM, ['exec', '--offline', '--no', '--', 'clobbot', 'help', 'run'], { cwd: project });
    expect(help.stdout).toMatch(/^usage: clobbot run/);
    const { stdout } = await run(NPM, ['exec', '--offline', '--no', '--', 'clobbot', 'validate', 'run.yaml'], { cwd: project });
    expect(stdout).toMatch(/run\.yaml: valid run file/);
  });

  it('npx clobbot run --duration 5s trades the project strategy on the in-process venue with an ephemeral wallet', async () => {
    // Exit 0 (run throws otherwise).
    const { stdout } = await run(NPM, ['exec', '--offline', '--no', '--', 'clobbot', 'run', 'run.yaml', '--duration', '5s'], { cwd: project, timeout: 90_000 });
    expect(stdout, stdout).toMatch(/strategy\s+one: scratch-one-level \(strategies\/one-level\.ts\) on MON_USDC/);
    expect(stdout, stdout).toMatch(/run summary: [\d.]+ s, stopped because the duration \(5 s\) ended/);
    expect(stdout).toMatch(/open after stop 0/);
  }, 120_000);
});
