/**
 * The API reference (`npm run docs`, typedoc.json) stays buildable: TypeDoc converts the package's
 * entry points and validates them as `npm run docs` does (a type the public API uses but does not
 * export, a `{@link}` that resolves to nothing), with `--emit none` so nothing is written.
 * TypeDoc and its TypeScript 6 live in tools/typedoc/ (the project's typescript is 7, without the
 * JS compiler API TypeDoc needs).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const typedocCli = fileURLToPath(new URL('../../tools/typedoc/node_modules/typedoc/bin/typedoc', import.meta.url));

/** typedoc.json, whose comments are whole `//` lines. */
const config = JSON.parse(readFileSync(new URL('../../typedoc.json', import.meta.url), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
  entryPoints: string[];
  treatWarningsAsErrors: boolean;
  validation: Record<string, boolean>;
};
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
};

describe('API reference (TypeDoc)', () => {
  it('documents every entry point of the package, and only those', () => {
    const sources = Object.values(packageJson.exports).flatMap((target) =>
      typeof target === 'object' && target['clobbot-source'] !== undefined ? [target['clobbot-source'].replace(/^\.\//, '')] : [],
    );
    expect([...config.entryPoints].sort()).toEqual(sources.sort());
  });

  it('fails on a warning, and validates exports and links', () => {
    expect(config.treatWarningsAsErrors).toBe(true);
    expect(config.validation).toMatchObject({ notExported: true, invalidLink: true });
  });

  it('converts and validates the public API without a warning', { timeout: 120_000 }, async () => {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [typedocCli, '--emit', 'none', '--logLevel', 'Warn'], { cwd: root, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` });
      });
    });
    expect(output.trim(), 'TypeDoc reported').toBe('');
    expect(code).toBe(0);
  });
});
