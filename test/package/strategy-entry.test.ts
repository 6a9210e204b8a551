/**
 * `clobbot/strategy` stays light: the built entry (dist/strategy/index.js, what a strategy module gets
 * in an installed project and under `clobbot validate`) loads no package but zod, decimal.js and rxjs,
 * none of the library's clients, venue or engine dependencies (viem, ws, pino, apache-arrow…), which
 * is what keeps loading a strategy fast (issue 16). Seen by module hooks that note every module loaded.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Hooks that print each module's URL on stderr as it loads (the hooks' own thread cannot use process.stderr). */
const NOTE_LOADS = `
import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  writeSync(2, 'loaded ' + url + '\\n');
  return next(url, context);
}
`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(NOTE_LOADS)}`)});`;

/** The packages (names under node_modules) importing `entry` loads. */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});`;
  const { stderr } = await promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', script], { cwd: ROOT });
  const names = [...stderr.matchAll(/^loaded .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((match) => match[1]!);
  return [...new Set(names)].sort();
}

describe('clobbot/strategy (built)', () => {
  it('loads only zod, decimal.js and rxjs', async () => {
    expect(await packagesLoadedBy('dist/strategy/index.js')).toEqual(['decimal.js', 'rxjs', 'zod']);
  });

  it('where clobbot loads viem and the rest (the check sees them)', async () => {
    expect(await packagesLoadedBy('dist/index.js')).toEqual(expect.arrayContaining(['viem', 'ws', 'zod']));
  });
});
