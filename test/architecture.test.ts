/**
 * House rules that a reviewer would otherwise have to remember: the layers of src/ import only from
 * layers below them, and nothing on the trading path reads wall time, randomness or the console
 * directly (docs: README "Architecture", shared design guide).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const LAYERS = ['core', 'protocol', 'config', 'venue', 'clients', 'market', 'strategy', 'execution', 'feeds', 'sim', 'runtime', 'backtest', 'testing', 'cli'];
const src = new URL('../src', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Source without comments, so JSDoc examples do not count. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/**
 * Folders that belong to a layer of another name: src/sweep is the CLI's (a sweep's job runs the
 * backtest command's core, and the sweep command runs sweeps).
 */
const PART_OF: Readonly<Record<string, string>> = { sweep: 'cli' };
const layerOfFolder = (folder: string) => PART_OF[folder] ?? folder;

const layerOf = (path: string) => layerOfFolder(relative(src, path).split('/')[0]!);

/** Every relative module a file imports: static `from '…'` (values and types) and dynamic `import('…')`. */
function importsIn(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\(\s*)'(\.\.?\/[^']+)'/g)].map((match) => match[1]!);
}

/** The layer of a relative import of `path` (undefined outside src/'s layers). */
function targetLayer(path: string, specifier: string): string | undefined {
  const target = layerOfFolder(relative(src, join(path, '..', specifier)).split('/')[0]!);
  return LAYERS.includes(target) ? target : undefined;
}

/** The trading path: what runs the same live, on the local venue and in a backtest. It never reaches into the venue model or its network face. */
const TRADING_PATH = ['core', 'protocol', 'config', 'clients', 'market', 'strategy', 'execution', 'feeds'];

describe('architecture', () => {
  const sources = files(src).filter((path) => path !== join(src, 'index.ts'));

  it('puts every source file in a known layer', () => {
    for (const path of sources) expect(LAYERS, relative(src, path)).toContain(layerOf(path));
  });

  it('imports only from the same or lower layers', () => {
    for (const path of sources) {
      const own = LAYERS.indexOf(layerOf(path));
      for (const specifier of importsIn(code(path))) {
        const target = targetLayer(path, specifier);
        if (target === undefined) continue;
        expect(LAYERS.indexOf(target), `${relative(src, path)} imports ${specifier}`).toBeLessThanOrEqual(own);
      }
    }
  });

  it('keeps the trading path off the venue model and the simulator (statically or through import())', () => {
    for (const path of sources.filter((file) => TRADING_PATH.includes(layerOf(file)))) {
      for (const specifier of importsIn(code(path))) expect(['venue', 'sim'], `${relative(src, path)} imports ${specifier}`).not.toContain(targetLayer(path, specifier));
    }
  });

  it('sees dynamic imports and type-only imports', () => {
    const sample = join(src, 'strategy', 'sample.ts');
    const text = "import type { A } from '../venue/a.ts';\nconst b = await import('../sim/b.ts');\ntype C = import('../venue/c.ts').C;";
    const found = importsIn(text).map((specifier) => targetLayer(sample, specifier));
    expect(found).toEqual(['venue', 'sim', 'venue']);
  });

  it('never casts an error code: the compiler checks every code passed to BaseError against the table', () => {
    for (const path of sources) expect(code(path), relative(src, path)).not.toMatch(/\bas (string as )?ErrorCode\b/);
  });

  it('reads wall time only in the live clock, and never Math.random, timers or the console', () => {
    for (const path of sources) {
      const text = code(path);
      const where = relative(src, path);
      if (where !== 'core/clock.ts') expect(text, where).not.toMatch(/\bDate\.now\(|new Date\(\)/);
      expect(text, where).not.toMatch(/\bMath\.random\(|\bsetTimeout\(|\bsetInterval\(|\bconsole\./);
    }
  });
});

