/**
 * The rule list: every rule a module of src/execution/risk/ exports is in RISK_RULES (a new rule
 * file cannot be forgotten), named after its file, in the documented order; together the rules
 * read every limit of the run file's `risk` section.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RiskRule } from '../../../src/execution/risk/risk-rule.ts';
import { RISK_RULES } from '../../../src/execution/risk/rules.ts';
import { LIMITS } from './risk-support.ts';

const folder = new URL('../../../src/execution/risk/', import.meta.url);

function isRule(value: unknown): value is RiskRule {
  return typeof value === 'object' && value !== null && 'codes' in value && 'check' in value && typeof value.check === 'function';
}

/** Each module of the folder with the rules it exports. */
async function ruleModules(): Promise<{ readonly file: string; readonly rules: RiskRule[] }[]> {
  const files = readdirSync(folder).filter((file) => file.endsWith('.ts'));
  return Promise.all(files.map(async (file) => ({ file, rules: Object.values((await import(new URL(file, folder).href)) as Record<string, unknown>).filter(isRule) })));
}

describe('RISK_RULES', () => {
  it('holds every rule of the folder once, each in a file of its own name', async () => {
    const modules = (await ruleModules()).filter(({ rules }) => rules.length > 0);
    for (const { file, rules } of modules) {
      expect(rules, file).toHaveLength(1);
      expect(`${rules[0]!.name}.ts`).toBe(file);
    }
    expect(modules.length).toBeGreaterThan(0);
    expect(new Set(RISK_RULES)).toEqual(new Set(modules.map(({ rules }) => rules[0])));
    expect(RISK_RULES).toHaveLength(modules.length);
  });

  it('checks in the order docs/execution.md gives', () => {
    const doc = readFileSync(new URL('../../../docs/execution.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| \d+ \| `([a-z-]+)\.ts` \|/gm)].map((match) => match[1]);
    expect(documented).toEqual(RISK_RULES.map((rule) => rule.name));
  });

  it('reads every limit of the risk section', () => {
    expect(new Set(RISK_RULES.flatMap((rule) => rule.reads))).toEqual(new Set(Object.keys(LIMITS)));
  });
});
