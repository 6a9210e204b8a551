/**
 * Everything the docs show a user importing from `clobbot`, `clobbot/strategy` or `clobbot/testing`
 * is exported: every `import { … } from 'clobbot'` (or `'clobbot/strategy'`, `'clobbot/testing'`) in a
 * fenced code block of README.md and docs/*.md names an export of src/index.ts (src/strategy/index.ts,
 * src/testing/index.ts). Values are checked on the module
 * namespace (vitest resolves `clobbot` to src/, see vitest.config.ts); type-only names (`type X`) on
 * the export text of the entry point. test/package/npm-package.test.ts checks the built package.
 */
import * as api from 'clobbot';
import * as strategy from 'clobbot/strategy';
import * as testing from 'clobbot/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface DocumentedImport {
  readonly file: string;
  readonly line: number;
  readonly module: 'clobbot' | 'clobbot/strategy' | 'clobbot/testing';
  readonly name: string;
  readonly typeOnly: boolean;
}

/** Every named import from clobbot, clobbot/strategy or clobbot/testing in the fenced code blocks of a markdown text. */
export function documentedImports(file: string, text: string): DocumentedImport[] {
  const found: DocumentedImport[] = [];
  const fence = /^(```|~~~)[^\n]*\n([\s\S]*?)^\1[ \t]*$/gm;
  for (const block of text.matchAll(fence)) {
    const body = block[2] ?? '';
    const bodyStart = (block.index ?? 0) + block[0].indexOf('\n') + 1;
    const statement = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"](clobbot(?:\/strategy|\/testing)?)['"]/g;
    for (const match of body.matchAll(statement)) {
      const line = text.slice(0, bodyStart + (match.index ?? 0)).split('\n').length;
      for (const raw of (match[2] ?? '').split(',')) {
        const part = raw.replace(/\/\/.*$|\/\*.*?\*\//gm, '').trim();
        if (part === '') continue;
        const typeOnly = match[1] !== undefined || /^type\s/.test(part);
        const name = part.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!.trim();
        found.push({ file, line, module: match[3] as DocumentedImport['module'], name, typeOnly });
      }
    }
  }
  return found;
}

function markdownFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

/** The names an entry point exports (`export { a, b as c, type T } from …`, `export type { … }`). */
function exportedNames(entry: string): Set<string> {
  const text = readFileSync(join(ROOT, entry), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  const names = new Set<string>();
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const raw of (match[1] ?? '').split(',')) {
      const part = raw.trim().replace(/^type\s+/, '');
      if (part === '') continue;
      const pieces = part.split(/\s+as\s+/);
      names.add((pieces[1] ?? pieces[0]!).trim());
    }
  }
  return names;
}

const ENTRIES = {
  clobbot: { namespace: api as Record<string, unknown>, names: exportedNames('src/index.ts') },
  'clobbot/strategy': { namespace: strategy as Record<string, unknown>, names: exportedNames('src/strategy/index.ts') },
  'clobbot/testing': { namespace: testing as Record<string, unknown>, names: exportedNames('src/testing/index.ts') },
} as const;

describe('the documented imports', () => {
  const imports = markdownFiles().flatMap((file) => documentedImports(file, readFileSync(join(ROOT, file), 'utf8')));

  it('finds the imports of the docs (the extraction works)', () => {
    expect(imports.length).toBeGreaterThan(10);
    expect(imports).toContainEqual(expect.objectContaining({ file: 'docs/market-data.md', module: 'clobbot', name: 'buildBars' }));
    expect(imports.some((entry) => entry.module === 'clobbot/testing')).toBe(true);
    expect(imports.some((entry) => entry.module === 'clobbot/strategy')).toBe(true);
    expect(documentedImports('x.md', "```ts\nimport {\n  a,\n  type B, // why\n  c as d,\n} from 'clobbot';\nimport type { E } from 'clobbot/testing';\n```\n")).toEqual([
      { file: 'x.md', line: 2, module: 'clobbot', name: 'a', typeOnly: false },
      { file: 'x.md', line: 2, module: 'clobbot', name: 'B', typeOnly: true },
      { file: 'x.md', line: 2, module: 'clobbot', name: 'c', typeOnly: false },
      { file: 'x.md', line: 7, module: 'clobbot/testing', name: 'E', typeOnly: true },
    ]);
  });

  it('are all exported by clobbot and clobbot/testing', () => {
    const missing = imports
      .filter(({ module, name, typeOnly }) => {
        const entry = ENTRIES[module];
        return typeOnly ? !entry.names.has(name) : !(name in entry.namespace);
      })
      .map(({ file, line, module, name }) => `${file}:${line}: ${name} from '${module}'`);
    expect(missing).toEqual([]);
  });

  it("are exported by clobbot too when clobbot/strategy exports them: it is clobbot's light entry, not a second API", () => {
    const extra = [...ENTRIES['clobbot/strategy'].names].filter((name) => !ENTRIES.clobbot.names.has(name));
    expect(extra).toEqual([]);
  });

  it('include the bar builder of docs/market-data.md', () => {
    for (const name of ['buildBars', 'candleToKline', 'klineToCandle', 'WEEKLY_OFFSET_MS', 'BarBuilder']) expect(name in api, name).toBe(true);
  });
});
