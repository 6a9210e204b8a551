import { readFileSync } from 'node:fs';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BaseError, isBaseError } from '../../src/core/base-error.ts';
import { errorCodes } from '../../src/core/error-codes.ts';

/** Codes of the table in docs/errors.md: first column of rows like "| `CODE` | meaning |". */
function documentedCodes(): string[] {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  return [...doc.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|/gm)].map((m) => m[1]!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('BaseError', () => {
  it('carries a stable code, message, details and cause', () => {
    const cause = new Error('inner');
    const error = new BaseError('CONFIG_INVALID', 'bad config', { details: { file: 'a.yaml' }, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe('bad config');
    expect(error.details).toEqual({ file: 'a.yaml' });
    expect(error.cause).toBe(cause);
    expect(error.meaning).toBe(errorCodes.CONFIG_INVALID);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'CONFIG_INVALID', message: 'bad config', details: { file: 'a.yaml' } });
    expect(isBaseError(error, 'CONFIG_INVALID')).toBe(true);
    expect(isBaseError(error, 'CLI_USAGE')).toBe(false);
    expect(isBaseError(cause)).toBe(false);
  });
});

describe('error codes', () => {
  it('documents every code of the table in docs/errors.md, and nothing else', () => {
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(errorCodes).sort());
  });

  it('uses only codes of the table wherever src throws a BaseError (or a subclass)', () => {
    const src = new URL('../../src', import.meta.url).pathname;
    const used = new Set<string>();
    for (const file of sourceFiles(src)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/new [A-Z]\w*Error\(\s*'([A-Z0-9_]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(5);
    for (const code of used) expect(Object.keys(errorCodes), code).toContain(code);
  });

  it('has no dead codes: each one is named somewhere in src besides the table', () => {
    const src = new URL('../../src', import.meta.url).pathname;
    const text = sourceFiles(src)
      .filter((file) => !file.endsWith('error-codes.ts'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    for (const code of Object.keys(errorCodes)) expect(text, code).toContain(`'${code}'`);
  });
});
