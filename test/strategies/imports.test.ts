/**
 * Reference strategies are written as users write theirs: against the public API only, its light
 * entry `clobbot/strategy` (what loads a strategy fast, issue 16).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../strategies/', import.meta.url);

describe('reference strategies', () => {
  const modules = readdirSync(dir).filter((name) => name.endsWith('.ts'));

  it('exist', () => {
    expect(modules.sort()).toEqual(['grid.ts', 'ma-crossover.ts', 'market-maker.ts', 'twap.ts']);
  });

  it("import only from 'clobbot/strategy' (and rxjs for operators), and read neither wall time nor Math.random", () => {
    for (const name of modules) {
      const text = readFileSync(new URL(name, dir), 'utf8');
      const sources = [...text.matchAll(/^import[^;]*?from '([^']+)'/gms)].map((match) => match[1]);
      for (const source of sources) expect(['clobbot/strategy', 'rxjs'], `${name} imports ${source}`).toContain(source);
      expect(text, name).not.toMatch(/\bDate\.now\(|new Date\(\)|\bMath\.random\(|\bsetTimeout\(|\bsetInterval\(|\bconsole\./);
    }
  });
});
