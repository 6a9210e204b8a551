import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isBaseError } from '../../src/core/base-error.ts';
import { formatConfigIssue, formatConfigPath } from '../../src/config/config-issue.ts';
import { loadConfig, loadConfigOrThrow, parseConfig, validateYamlSource } from '../../src/config/load-config.ts';
import { parseYamlSource } from '../../src/config/yaml-source.ts';
import { tempDir } from '../support/cli-harness.ts';

const schema = z.strictObject({
  name: z.string(),
  port: z.number().int(),
  nested: z.strictObject({ level: z.enum(['a', 'b']), list: z.array(z.number()) }).optional(),
  url: z.string().optional(),
});

function messages(text: string, env: Record<string, string> = {}): string[] {
  const result = parseConfig(text, schema, { file: 'c.yaml', env });
  if (result.ok) throw new Error('expected the config to be invalid');
  return result.issues.map(formatConfigIssue);
}

describe('formatConfigPath', () => {
  it('writes indexes in brackets and quotes keys that are not identifiers', () => {
    expect(formatConfigPath(['strategies', 0, 'params', 'spreadBps'])).toBe('strategies[0].params.spreadBps');
    expect(formatConfigPath(['hosts', 'my host'])).toBe('hosts["my host"]');
    expect(formatConfigPath([])).toBe('');
  });
});

describe('parseConfig: located issues', () => {
  it('returns the validated value, deep-frozen', () => {
    const result = parseConfig('name: x\nport: 80\nnested:\n  level: a\n  list: [1, 2]\n', schema, { file: 'c.yaml', env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual({ name: 'x', port: 80, nested: { level: 'a', list: [1, 2] } });
    expect(Object.isFrozen(result.value)).toBe(true);
    expect(Object.isFrozen(result.value.nested)).toBe(true);
    expect(Object.isFrozen(result.value.nested?.list)).toBe(true);
  });

  it('locates a wrong type at the value', () => {
    expect(messages('name: x\nport: abc\n')).toEqual(['c.yaml:2:7 port: expected a number, got a string']);
  });

  it('locates a wrong type deep in lists and maps', () => {
    expect(messages('name: x\nport: 1\nnested:\n  level: a\n  list:\n    - 1\n    - two\n')).toEqual([
      'c.yaml:7:7 nested.list[1]: expected a number, got a string',
    ]);
  });

  it('locates an unknown key at the key, naming the allowed keys', () => {
    expect(messages('name: x\nport: 1\nnested:\n  level: a\n  list: []\n  colour: red\n')).toEqual([
      'c.yaml:6:3 nested.colour: unknown key (allowed here: level, list)',
    ]);
  });

  it('reports each unknown key of one map at its own position', () => {
    expect(messages('name: x\nport: 1\nfoo: 1\nbar: 2\n')).toEqual([
      'c.yaml:3:1 foo: unknown key (allowed here: name, port, nested, url)',
      'c.yaml:4:1 bar: unknown key (allowed here: name, port, nested, url)',
    ]);
  });

  it('locates a missing key at the map that should hold it', () => {
    expect(messages('name: x\nport: 1\nnested:\n    list: []\n')).toEqual(['c.yaml:4:5 nested.level: required: expected one of a, b']);
  });

  it('locates an enum mismatch at the value', () => {
    expect(messages('name: x\nport: 1\nnested: { level: c, list: [] }\n')).toEqual(['c.yaml:3:18 nested.level: expected one of a, b']);
  });

  it('locates a key written with no value at the key', () => {
    expect(messages('name:\nport: 1\n')).toEqual(['c.yaml:1:1 name: expected a string, got null']);
  });

  it('reports an empty document at 1:1', () => {
    expect(messages('')).toEqual(['c.yaml:1:1: expected a map, got null']);
  });

  it('locates YAML syntax errors', () => {
    expect(messages('name: @x\n')).toEqual(['c.yaml:1:7: YAML syntax: Plain value cannot start with reserved character @']);
    expect(messages('name: a\n---\nport: 3\n')).toEqual(['c.yaml:2:1: YAML syntax: a config file holds one YAML document (found a second `---`)']);
    expect(messages('name: [1, 2\nport: 3\n')).toEqual([
      'c.yaml:2:1: YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('refuses duplicate keys, at the second one', () => {
    expect(messages('name: x\nport: 1\nname: y\n')).toEqual(['c.yaml:3:1: duplicate key name: a key may appear only once in a map']);
    expect(messages('name: x\nnested: { level: a, level: b }\n')).toEqual([
      'c.yaml:2:21: duplicate key level: a key may appear only once in a map',
    ]);
  });

  it('interpolates ${NAME} in strings, keeps $${ as a literal', () => {
    const result = parseConfig('name: "${USER_NAME}-$${HOME}"\nport: 1\nurl: http://${HOST}:8080/x\n', schema, {
      file: 'c.yaml',
      env: { USER_NAME: 'alice', HOST: 'example.org' },
    });
    expect(result.ok && result.value).toEqual({ name: 'alice-${HOME}', port: 1, url: 'http://example.org:8080/x' });
  });

  it('locates a missing environment variable at its value', () => {
    expect(messages('name: x\nport: 1\nurl: "${NOT_SET_ANYWHERE}"\n')).toEqual([
      'c.yaml:3:6 url: environment variable NOT_SET_ANYWHERE is not set',
    ]);
  });

  it('refuses a malformed reference', () => {
    expect(messages('name: ${bad-name}\nport: 1\n')[0]).toMatch(/^c\.yaml:1:7 name: malformed \$\{\.\.\.\} reference/);
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    const big = z.strictObject({ amount: z.bigint(), small: z.number() });
    const result = parseConfig('amount: 1000000000000000000001\nsmall: 7\n', big, { file: 'c.yaml', env: {} });
    expect(result.ok && result.value).toEqual({ amount: 1000000000000000000001n, small: 7 });
  });
});

describe('validateYamlSource at a path', () => {
  it('locates issues of a sub-document (strategy params) in the file', () => {
    const text = 'strategies:\n  - name: mm\n    params:\n      spreadBps: abc\n      levels: 3\n';
    const parsed = parseYamlSource(text, { file: 'config/mm.yaml', env: {} });
    if (!parsed.ok) throw new Error('parse failed');
    const params = z.strictObject({ spreadBps: z.number(), levels: z.number().int() });
    const result = validateYamlSource(parsed.source, params, ['strategies', 0, 'params']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatConfigIssue)).toEqual(['config/mm.yaml:4:18 strategies[0].params.spreadBps: expected a number, got a string']);
  });
});

describe('loadConfig and loadConfigOrThrow', () => {
  it('reports an unreadable file as an issue, and throws CONFIG_FILE_UNREADABLE', async () => {
    const tmp = tempDir();
    try {
      const missing = `${tmp.dir}/nope.yaml`;
      const result = await loadConfig(missing, schema, { env: {} });
      expect(!result.ok && result.issues.map(formatConfigIssue)).toEqual([`${missing}: cannot read the file: no such file`]);
      const dirResult = await loadConfig(tmp.dir, schema, { env: {} });
      expect(!dirResult.ok && dirResult.issues.map(formatConfigIssue)).toEqual([`${tmp.dir}: cannot read the file: is a directory, not a file`]);
      await expect(loadConfigOrThrow(missing, schema, { env: {} })).rejects.toMatchObject({ code: 'CONFIG_FILE_UNREADABLE' });
    } finally {
      tmp.remove();
    }
  });

  it('throws a BaseError whose code follows the kind of problem, with the issues in details', async () => {
    const tmp = tempDir();
    try {
      const cases: [string, string, string][] = [
        ['syntax.yaml', 'name: [\n', 'CONFIG_YAML_SYNTAX'],
        ['dup.yaml', 'name: a\nname: b\n', 'CONFIG_YAML_SYNTAX'],
        ['env.yaml', 'name: ${NOT_SET_ANYWHERE}\nport: 1\n', 'CONFIG_ENV_MISSING'],
        ['schema.yaml', 'name: a\nport: x\n', 'CONFIG_INVALID'],
      ];
      for (const [name, text, code] of cases) {
        const file = tmp.write(name, text);
        const error = await loadConfigOrThrow(file, schema, { env: {} }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(isBaseError(error), name).toBe(true);
        if (!isBaseError(error)) continue;
        expect(error.code, name).toBe(code);
        const details = error.details as { file: string; issues: { file: string; line: number }[] };
        expect(details.file).toBe(file);
        expect(details.issues.length).toBeGreaterThan(0);
        expect(error.message).toContain(`${file}:`);
      }
      const ok = await loadConfigOrThrow(tmp.write('ok.yaml', 'name: a\nport: 2\n'), schema, { env: {} });
      expect(ok).toEqual({ name: 'a', port: 2 });
      expect(Object.isFrozen(ok)).toBe(true);
    } finally {
      tmp.remove();
    }
  });
});
