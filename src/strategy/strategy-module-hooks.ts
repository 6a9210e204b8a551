/**
 * Module hooks (run in Node's loader thread; plain JS so they need no compiler) that let a strategy
 * file load from anywhere:
 * - a TypeScript file (`.ts`, `.mts`, `.tsx`) is compiled by esbuild's `transform` to an ES module
 *   (types stripped, an inline source map; tsconfig.json is not read). Also in a `"type":
 *   "commonjs"` package, and when clobbot itself runs from its sources through tsx (`npm run
 *   bench`; these hooks come first): as CommonJS, a strategy could not import the ES module clobbot
 *   on Node 20 (`Cannot require() ES Module … in a cycle`). That is all of tsx a strategy needs,
 *   without its start-up (issue 16: with tsx, `clobbot validate config/market-maker.yaml` took some
 *   100 ms longer). The output is kept per file, with the hash of the source it was compiled from,
 *   in `node_modules/.cache/clobbot` (`typescriptCacheDirectory`): an unchanged strategy loads
 *   without esbuild;
 * - a relative import that names no file is looked up as TypeScript code names one: `./x.js` is
 *   `./x.ts` (NodeNext), `./x` is `./x.ts` (Bundler);
 * - a bare import (`clobbot`, `rxjs`) a file outside clobbot cannot resolve from its own location is
 *   resolved from clobbot's package, so the strategy gets the very `clobbot` the CLI runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const STRATEGY_HOOKS = `
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
let root = '';
let esbuildUrl;
let cacheDir;
let esbuild;
let esbuildVersion;
export function initialize(data) { ({ root, esbuild: esbuildUrl, cache: cacheDir } = data); }
const TS = new Set(['.ts', '.mts', '.tsx']);
const INSTEAD = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.jsx': ['.tsx'], '': ['.ts', '.tsx', '/index.ts'] };
const outside = (url) => typeof url === 'string' && url.startsWith('file:') && !url.startsWith(root) && !url.includes('/node_modules/');
const bare = (specifier) => !/^(\\.|\\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(specifier);
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    if (bare(specifier)) {
      if (!outside(context.parentURL)) throw error;
      return next(specifier, { ...context, parentURL: root + 'package.json' });
    }
    const extension = extname(specifier);
    for (const instead of INSTEAD[extension] ?? []) {
      try {
        return await next(specifier.slice(0, specifier.length - extension.length) + instead, context);
      } catch {}
    }
    throw error;
  }
}
export async function load(url, context, next) {
  const extension = url.startsWith('file:') ? extname(new URL(url).pathname) : '';
  if (!TS.has(extension)) return next(url, context);
  const file = fileURLToPath(url);
  const source = readFileSync(file, 'utf8');
  const options = { loader: extension === '.tsx' ? 'tsx' : 'ts', format: 'esm', sourcefile: file, sourcemap: 'inline', target: 'node' + process.versions.node };
  // One entry per file, compiler and options; its first line is the hash of the source it was compiled from.
  esbuildVersion ??= JSON.parse(readFileSync(new URL('../package.json', esbuildUrl), 'utf8')).version;
  const entry = join(cacheDir, sha256(JSON.stringify([esbuildVersion, options])) + '.js');
  const header = '// ' + sha256(source) + '\\n';
  try {
    const cached = readFileSync(entry, 'utf8');
    if (cached.startsWith(header)) return { format: 'module', source: cached.slice(header.length), shortCircuit: true };
  } catch {}
  esbuild ??= await import(esbuildUrl);
  const { code } = await esbuild.transform(source, options);
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written aside and renamed: a process reading the entry meanwhile sees the old one or the new one, whole.
    writeFileSync(entry + '.' + process.pid, header + code);
    renameSync(entry + '.' + process.pid, entry);
  } catch {} // a cache that cannot be written (a read-only install) only costs the next load its compile
  return { format: 'module', source: code, shortCircuit: true };
}
`;

const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');
let hooks: Promise<void> | undefined;

/** clobbot's package directory (with a trailing slash), found from this file, as source or compiled. */
function clobbotRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'clobbot') return pathToFileURL(`${dir}/`).href;
      } catch {
        // not ours: go on up
      }
    }
    const up = dirname(dir);
    if (up === dir) return pathToFileURL(`${dirname(dirname(fileURLToPath(import.meta.url)))}/`).href;
    dir = up;
  }
}

/**
 * Where compiled strategy files are kept, beside other tools' caches: `<project>/node_modules/.cache/clobbot`
 * when clobbot is installed in `<project>/node_modules`, else clobbot's own `node_modules/.cache/clobbot`.
 *
 * @example typescriptCacheDirectory('file:///work/app/node_modules/clobbot/') // '/work/app/node_modules/.cache/clobbot'
 */
export function typescriptCacheDirectory(root: string): string {
  const dir = fileURLToPath(root);
  const parent = dirname(dir);
  return basename(parent) === 'node_modules' ? join(parent, '.cache', 'clobbot') : join(dir, 'node_modules', '.cache', 'clobbot');
}

/**
 * Installs the strategy module hooks once per process, and turns source maps on so that stack traces
 * of a TypeScript strategy name its own lines (from its sources, clobbot runs under a loader that
 * has its own). Hooks only act where Node's loader imports the module (the CLI); under a test runner
 * with its own module loader (vitest) they are harmless and unused.
 */
export function installStrategyHooks(): Promise<void> {
  hooks ??= (async () => {
    if (typeof register !== 'function') return;
    // Loaded first, as nearly every strategy imports it (and rxjs with it): once the hooks are registered
    // each module load crosses to their thread, which made `clobbot validate` some 15 ms slower.
    await import('./index.ts');
    const root = clobbotRoot();
    // esbuild comes with tsx (a dependency); located here because the hooks, a data: URL, resolve no package.
    const esbuild = pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href;
    register(`data:text/javascript,${encodeURIComponent(STRATEGY_HOOKS)}`, { data: { root, esbuild, cache: typescriptCacheDirectory(root) } });
    if (!RUNNING_FROM_SOURCE) process.setSourceMapsEnabled(true);
  })();
  return hooks;
}
