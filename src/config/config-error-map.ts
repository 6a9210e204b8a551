/**
 * Messages for zod issues in config files: what was expected and the kind of thing found, never the
 * value itself (it may be a secret). Messages that a schema sets itself take precedence over these.
 */
import type { z } from 'zod';

/** `a string`, `a list`, `an integer`, … : what kind of YAML value `value` is, without its content. */
export function describeKind(value: unknown): string {
  if (value === undefined) return 'nothing (the key is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a fractional number';
  if (typeof value === 'bigint') return 'an integer';
  if (typeof value === 'boolean') return 'true or false';
  return `a ${typeof value}`;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  tuple: 'a list',
  object: 'a map',
  record: 'a map',
  map: 'a map',
  null: 'null',
  literal: 'a fixed value',
  date: 'a date',
  never: 'no value here',
};

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'bigint' ? value.toString() : JSON.stringify(value) ?? String(value);
}

function shapeKeys(issue: { readonly inst?: unknown }): string[] {
  const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * The zod error map of config validation: pass it as `schema.safeParse(data, { error: configErrorMap })`.
 *
 * @example configErrorMap({ code: 'invalid_type', expected: 'number', input: 'abc' }) // 'expected a number, got a string'
 */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  const message = describeIssue(issue);
  return issue.input === undefined && issue.code !== 'unrecognized_keys' && !message.startsWith('required') ? `required: ${message}` : message;
};

function describeIssue(issue: Parameters<z.core.$ZodErrorMap>[0]): string {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `required: expected ${expected}`;
      return `expected ${expected}, got ${describeKind(issue.input)}`;
    }
    case 'unrecognized_keys': {
      const allowed = shapeKeys(issue);
      return allowed.length > 0 ? `unknown key (allowed here: ${allowed.join(', ')})` : 'unknown key';
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `expected ${formatValue(issue.values[0])}`
        : `expected one of ${issue.values.map(formatValue).join(', ')}`;
    case 'too_small':
    case 'too_big': {
      const bound = formatValue(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      const small = issue.code === 'too_small';
      const op = small ? (issue.inclusive === false ? '>' : '>=') : issue.inclusive === false ? '<' : '<=';
      switch (issue.origin) {
        case 'string':
          return `expected ${small ? 'at least' : 'at most'} ${bound} characters`;
        case 'array':
        case 'set':
          return `expected ${small ? 'at least' : 'at most'} ${bound} ${bound === '1' ? 'item' : 'items'}`;
        default:
          return `expected a number ${op} ${bound}`;
      }
    }
    case 'invalid_format':
      return issue.format === 'regex' ? 'not in the expected form' : `expected ${issue.format === 'url' ? 'a URL' : `a ${issue.format}`}`;
    case 'not_multiple_of':
      return `expected a multiple of ${formatValue(issue.divisor)}`;
    case 'invalid_union':
      return 'does not match any of the allowed forms';
    case 'invalid_key':
      return 'invalid key';
    case 'invalid_element':
      return 'invalid entry';
    default:
      return 'invalid value';
  }
}
