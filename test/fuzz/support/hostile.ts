/**
 * Hostile inputs for the parser fuzz tests (test/fuzz/*.prop.test.ts): a valid text bent at one or
 * a few places (truncated, bit-flipped, a value swapped for a hostile one, a key duplicated or
 * injected, garbage spliced in), deep nesting, oversized values, and plain garbage; plus the one
 * check every parser must pass: a valid value or a BaseError of an expected code, nothing else, in
 * bounded time, with Object.prototype untouched.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { BaseError } from '../../../src/core/base-error.ts';
import { errorCodes, type ErrorCode } from '../../../src/core/error-codes.ts';

/** How long one parse may take before it counts as a hang (generous: the machine is shared). */
export const PARSE_BUDGET_MS = 3_000;

const deep = (depth: number, open: string, close: string, inner = '1') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** JSON texts (and near-JSON) that a parser meets where it expects a value. */
export const HOSTILE_VALUES: readonly string[] = [
  'null', 'true', 'false', '0', '-0', '-1', '1.5', '-1.5', '1e400', '-1e400', '1e-400', '9007199254740993', '18446744073709551616',
  `1${'0'.repeat(400)}`, '"1"', '"-1"', '"1.5"', '"1e3"', '"0x10"', '" 1"', '"01"', '""', '"NaN"', '"Infinity"', '"-Infinity"',
  'NaN', 'Infinity', '-Infinity', 'undefined', '[]', '{}', '[1]', '["1","1"]', '[["1","1"]]', '{"a":1}',
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"__proto__":null}', '{"a":1,"a":2}',
  `"${'x'.repeat(100_000)}"`, `"${'9'.repeat(10_000)}"`, `"${'é'.repeat(1_000)}"`, '"\\ud800"', '"\\u0000"', '"\u202e\u0000"', '"🦄💰"',
  deep(10_000, '[', ']'), deep(10_000, '{"a":', '}'), deep(100, '[', ']'), deep(65, '{"a":', '}'),
  `[${Array.from({ length: 5_000 }, () => '1').join(',')}]`,
];

/** Fragments spliced into a text at a random place. */
const SPLICES: readonly string[] = [
  '{', '}', '[', ']', '"', '\\', ',', ':', '\u0000', '\uffff', '\ud800', 'NaN', '\n', ',"__proto__":{"polluted":true}', ',"constructor":{}', '"__proto__":1,', '}}}}', ']]]]', '\u001f',
];

/** The places in `text` where a JSON string or number starts and ends. */
function valueSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const pattern = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) spans.push([match.index, match.index + match[0].length]);
  return spans;
}

/** The places of `"key":value` pairs with a simple value (a string or number). */
function pairSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const pattern = /"[^"\\]*":(?:"(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|true|false|null)/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) spans.push([match.index, match.index + match[0].length]);
  return spans;
}

type Edit =
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'splice'; readonly at: number; readonly text: string }
  | { readonly kind: 'replace'; readonly at: number; readonly value: string }
  | { readonly kind: 'duplicate'; readonly at: number }
  | { readonly kind: 'swapType'; readonly at: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), text: fc.constantFrom(...SPLICES) }),
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: fc.constantFrom(...HOSTILE_VALUES) }), weight: 3 },
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  { arbitrary: fc.record({ kind: fc.constant('swapType' as const), at: fc.nat() }), weight: 2 },
);

/** `text` with one edit applied (an edit that finds no place changes nothing). */
export function applyEdit(text: string, change: Edit): string {
  switch (change.kind) {
    case 'truncate':
      return text.slice(0, change.at % Math.max(1, text.length));
    case 'flip': {
      if (text.length === 0) return text;
      const at = change.at % text.length;
      return `${text.slice(0, at)}${String.fromCharCode(text.charCodeAt(at) ^ (1 << change.bit))}${text.slice(at + 1)}`;
    }
    case 'splice': {
      const at = change.at % (text.length + 1);
      return `${text.slice(0, at)}${change.text}${text.slice(at)}`;
    }
    case 'replace': {
      const spans = valueSpans(text);
      if (spans.length === 0) return text;
      const [start, end] = spans[change.at % spans.length]!;
      return `${text.slice(0, start)}${change.value}${text.slice(end)}`;
    }
    case 'duplicate': {
      const spans = pairSpans(text);
      if (spans.length === 0) return text;
      const [start, end] = spans[change.at % spans.length]!;
      return `${text.slice(0, end)},${text.slice(start, end)}${text.slice(end)}`;
    }
    case 'swapType': {
      // A number as a string, a string of digits as a number.
      const spans = valueSpans(text);
      if (spans.length === 0) return text;
      const [start, end] = spans[change.at % spans.length]!;
      const token = text.slice(start, end);
      const swapped = token.startsWith('"') ? (/^"-?\d+(\.\d+)?"$/.test(token) ? token.slice(1, -1) : '0') : `"${token}"`;
      return `${text.slice(0, start)}${swapped}${text.slice(end)}`;
    }
  }
}

/** Random bytes read as UTF-8 (invalid sequences become U+FFFD) or as Latin-1. */
export const binaryGarbage: fc.Arbitrary<string> = fc
  .tuple(fc.uint8Array({ maxLength: 300 }), fc.boolean())
  .map(([bytes, utf8]) => Buffer.from(bytes).toString(utf8 ? 'utf8' : 'latin1'));

/**
 * Hostile texts around `templates` (valid bodies): one to three edits of a template, the template
 * inside a deep nest or repeated into an oversized array, or text that was never JSON.
 */
export function hostileJson(templates: readonly string[]): fc.Arbitrary<string> {
  const template = fc.constantFrom(...templates);
  return fc.oneof(
    { arbitrary: fc.tuple(template, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) => edits.reduce(applyEdit, text)), weight: 8 },
    fc.tuple(template, fc.integer({ min: 1, max: 20_000 })).map(([text, depth]) => deep(depth, '[', ']', text)),
    fc.tuple(template, fc.integer({ min: 2, max: 2_000 })).map(([text, count]) => `[${Array.from({ length: count }, () => text).join(',')}]`),
    fc.constantFrom(...HOSTILE_VALUES),
    fc.string({ maxLength: 200, unit: 'binary' }),
    fc.json({ maxDepth: 4 }),
    binaryGarbage,
  );
}

/** Whether `code` is one of the documented codes (src/core/error-codes.ts). */
export function isDocumentedCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorCodes, code);
}

/** Fails when anything got onto Object.prototype (a `__proto__` key that was assigned, not defined). */
export function expectPrototypesClean(): void {
  const probe: Record<string, unknown> = {};
  expect(probe['polluted']).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
}

export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: BaseError };

/**
 * Runs one parse: it must return (then `checkValue` holds the value to its schema) or throw a
 * BaseError whose documented code is in `codes`, within PARSE_BUDGET_MS, leaving prototypes alone.
 */
export async function expectTypedOutcome<T>(parse: () => T | Promise<T>, codes: readonly ErrorCode[], checkValue: (value: T) => void): Promise<Outcome<T>> {
  const started = performance.now();
  let outcome: Outcome<T>;
  try {
    outcome = { ok: true, value: await parse() };
  } catch (error) {
    if (!(error instanceof BaseError)) throw new Error(`not a BaseError: ${String(error)}`, { cause: error });
    expect(isDocumentedCode(error.code)).toBe(true);
    expect(codes).toContain(error.code);
    outcome = { ok: false, error };
  }
  expect(performance.now() - started).toBeLessThan(PARSE_BUDGET_MS);
  if (outcome.ok) checkValue(outcome.value);
  expectPrototypesClean();
  return outcome;
}
