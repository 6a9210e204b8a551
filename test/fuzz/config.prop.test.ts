/**
 * Fuzzing the config loader with YAML garbage around the real run and sim files: bent files,
 * anchors and alias bombs, deep nesting, tags, merge keys, `__proto__` keys and oversized files.
 * A file is a value its schema accepts or located issues (never a throw), and the throwing loader
 * turns the issues into a BaseError of a CONFIG_* code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { configError, loadConfigOrThrow, parseConfig } from '../../src/config/load-config.ts';
import { runConfigSchema } from '../../src/config/run-config.ts';
import { simConfigSchema } from '../../src/config/sim-config.ts';
import { MAX_CONFIG_BYTES } from '../../src/config/yaml-source.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { expectPrototypesClean, PARSE_BUDGET_MS } from './support/hostile.ts';

const RUN = readFileSync(new URL('../../config/market-maker.yaml', import.meta.url), 'utf8');
const SIM = readFileSync(new URL('../../config/sim.yaml', import.meta.url), 'utf8');
const ENV = { HOME: '/home/someone', CLOBBOT_PRIVATE_KEY: `0x${'11'.repeat(32)}` };
const SCHEMAS = [
  { name: 'run', text: RUN, schema: runConfigSchema },
  { name: 'sim', text: SIM, schema: simConfigSchema },
] as const;

/** An alias bomb: each anchor a list of nine aliases of the one before, 9^depth strings in all. */
function aliasBomb(depth: number): string {
  const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i <= depth; i += 1) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  return lines.join('\n');
}

const YAML_SPLICES = [
  '&a ', '*a', '*undefined_anchor', '<<: *a\n', '<<: [*a, *a]\n', '!!binary ', '!!js/function ', '!!python/object:os.system ', '!!set ', '? ', '[', '{', ']', '}',
  ': ', '- ', '\t', '\n---\n', '\n...\n', '%YAML 1.1\n', '"', "'", '#', '|\n', '>-\n', '${HOME}', '${', '${UNSET_VARIABLE}', '__proto__: {polluted: true}\n',
  'constructor: {prototype: {polluted: true}}\n', '\u0000', '\ufeff', '\ud800', '0x1F', '1e400', '.nan', '-.inf', '9007199254740993', '-1', '0.5', '~', 'null',
];

const yamlEdit = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  { arbitrary: fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), text: fc.constantFrom(...YAML_SPLICES) }), weight: 4 },
  fc.record({ kind: fc.constant('dupLine' as const), at: fc.nat() }),
);
type YamlEdit = typeof yamlEdit extends fc.Arbitrary<infer T> ? T : never;

function applyYamlEdit(text: string, change: YamlEdit): string {
  const at = change.at % Math.max(1, text.length);
  switch (change.kind) {
    case 'truncate':
      return text.slice(0, at);
    case 'flip':
      return `${text.slice(0, at)}${String.fromCharCode(text.charCodeAt(at) ^ (1 << change.bit))}${text.slice(at + 1)}`;
    case 'splice':
      return `${text.slice(0, at)}${change.text}${text.slice(at)}`;
    case 'dupLine': {
      const lines = text.split('\n');
      const index = change.at % lines.length;
      lines.splice(index, 0, lines[index]!);
      return lines.join('\n');
    }
  }
}

const hostileYaml = (template: string) =>
  fc.oneof(
    { arbitrary: fc.array(yamlEdit, { minLength: 1, maxLength: 4 }).map((edits) => edits.reduce(applyYamlEdit, template)), weight: 8 },
    fc.integer({ min: 1, max: 9 }).map((depth) => `${aliasBomb(depth)}\n${template}`),
    fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`),
    fc.integer({ min: 1, max: 2_000 }).map((depth) => Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')),
    fc.integer({ min: 1, max: 200_000 }).map((length) => `network: ${'x'.repeat(length)}\n`),
    fc.string({ maxLength: 300, unit: 'binary' }),
    fc.string({ maxLength: 300, unit: 'grapheme' }),
  );

const dir = mkdtempSync(join(tmpdir(), 'clobbot-config-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config fuzz', () => {
  it('the templates are valid files', () => {
    for (const { text, schema } of SCHEMAS) expect(parseConfig(text, schema, { file: 'f.yaml', env: ENV }).ok).toBe(true);
  });

  for (const { name, text: template, schema } of SCHEMAS) {
    it(`${name} config: a valid value or located issues, never a throw`, () => {
      let refused = 0;
      fc.assert(
        fc.property(hostileYaml(template), (text) => {
          const started = performance.now();
          const result = parseConfig(text, schema, { file: 'fuzz.yaml', env: ENV });
          expect(performance.now() - started).toBeLessThan(PARSE_BUDGET_MS);
          expectPrototypesClean();
          if (result.ok) {
            expect(schema.safeParse(result.source.data).success).toBe(true);
            expect(Object.isFrozen(result.value)).toBe(true);
            return;
          }
          refused += 1;
          expect(result.issues.length).toBeGreaterThan(0);
          for (const issue of result.issues) {
            expect(issue.file).toBe('fuzz.yaml');
            expect(typeof issue.message).toBe('string');
            if (issue.line !== undefined) expect(issue.line).toBeGreaterThanOrEqual(1);
            if (issue.column !== undefined) expect(issue.column).toBeGreaterThanOrEqual(1);
            // A secret from the environment never shows in a message.
            expect(issue.message).not.toContain(ENV.CLOBBOT_PRIVATE_KEY);
          }
          expect(configError('fuzz.yaml', result.issues).code).toMatch(/^CONFIG_(FILE_UNREADABLE|YAML_SYNTAX|INVALID|ENV_MISSING)$/);
        }),
        fuzzSettings({ numRuns: 100 }),
      );
      expect(refused).toBeGreaterThan(0);
    });
  }

  it('an alias bomb is refused as syntax, not expanded', () => {
    const result = parseConfig(`${aliasBomb(9)}\n${RUN}`, runConfigSchema, { file: 'bomb.yaml', env: ENV });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues.map((issue) => issue.message)).toContain('YAML aliases expand too far');
  });

  it('a file over MAX_CONFIG_BYTES is refused unread; a binary file is refused as not UTF-8', async () => {
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, `${RUN}\n#${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    await expect(loadConfigOrThrow(huge, runConfigSchema, { env: ENV })).rejects.toMatchObject({ code: 'CONFIG_FILE_UNREADABLE' });
    const binary = join(dir, 'binary.yaml');
    writeFileSync(binary, Buffer.from([0x6e, 0x3a, 0x20, 0xff, 0xfe, 0x00, 0xc3]));
    await expect(loadConfigOrThrow(binary, runConfigSchema, { env: ENV })).rejects.toMatchObject({ code: 'CONFIG_FILE_UNREADABLE' });
  });
});
