/**
 * The compiled loader keeps what esbuild made of a TypeScript strategy in node_modules/.cache/clobbot:
 * an unchanged file is served from there (esbuild is not run: an entry changed behind its back is what
 * loads), and a changed file is compiled again, never served stale. Through dist/ in a child process,
 * where the module hooks act (under vitest, vite loads modules itself).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { typescriptCacheDirectory } from '../../src/strategy/strategy-module-hooks.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const CACHE = typescriptCacheDirectory(pathToFileURL(ROOT).href);
const outside = mkdtempSync(join(tmpdir(), 'clobbot-ts-cache-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** The name of the strategy `module` exports, loaded by the compiled loader in a fresh process. */
async function loadedName(module: string): Promise<string> {
  const script = [
    `const { loadStrategy } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/strategy/load-strategy.js')).href)});`,
    `console.log((await loadStrategy(${JSON.stringify(module)})).definition.name);`,
  ].join('\n');
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return stdout.trim();
}

const strategy = (name: string) =>
  `import { NEVER } from 'rxjs';\nimport { defineStrategy, z } from 'clobbot/strategy';\nconst name: string = '${name}';\nexport default defineStrategy({ name, params: z.strictObject({}), create: () => NEVER });\n`;

describe('the TypeScript cache of the compiled loader', () => {
  it('lives beside the project\'s other tool caches', () => {
    expect(typescriptCacheDirectory('file:///work/app/node_modules/clobbot/')).toBe('/work/app/node_modules/.cache/clobbot');
    expect(typescriptCacheDirectory('file:///src/clobbot/')).toBe('/src/clobbot/node_modules/.cache/clobbot');
  });

  it('serves an unchanged file from the cache, and compiles a changed one again', async () => {
    const token = Math.random().toString(36).slice(2);
    const module = join(outside, 'cached.ts');
    writeFileSync(module, strategy(`first-${token}`));
    expect(await loadedName(module)).toBe(`first-${token}`);

    const entries = readdirSync(CACHE).filter((name) => readFileSync(join(CACHE, name), 'utf8').includes(`first-${token}`));
    expect(entries).toHaveLength(1);
    const entry = join(CACHE, entries[0]!);
    writeFileSync(entry, readFileSync(entry, 'utf8').replace(`first-${token}`, `tampered-${token}`));
    expect(await loadedName(module)).toBe(`tampered-${token}`);

    writeFileSync(module, strategy(`second-${token}`));
    expect(await loadedName(module)).toBe(`second-${token}`);
    expect(readFileSync(entry, 'utf8')).toContain(`second-${token}`);
  }, 30_000);
});
