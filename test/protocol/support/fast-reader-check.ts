/**
 * Holding a fast reader (src/protocol/fast-reader.ts) to its zod schema: whenever the reader gives
 * an answer it must be the schema's output (values, key order, prototypes), and near misses at
 * every place of a valid value must never be read differently.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { z } from 'zod';
import { uintMax } from '../../../src/protocol/encoding.ts';
import { NO_MATCH, type FastReader } from '../../../src/protocol/fast-reader.ts';
import { fuzzSettings } from '../../../src/testing/fuzz-settings.ts';

/** JSON.stringify's replacer for outputs that hold bigints. */
const withBigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values that are almost right somewhere: wrong types, non-canonical or out-of-range numbers, bad dates. */
export const nearMisses: Json[] = [
  null, true, false, 0, -0, -1, 1.5, 255, 256, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), [], {}, '', 'x', '0', '01', '-1', '1e3', ' 1', '1 ', '+1',
  uintMax(256).toString(), (uintMax(256) + 1n).toString(), uintMax(64).toString(), (uintMax(64) + 1n).toString(), `1${'0'.repeat(77)}`, '9'.repeat(79),
  `0x${'A'.repeat(40)}`, `0X${'a'.repeat(40)}`, `0x${'a'.repeat(39)}`, `0x${'g'.repeat(40)}`, `0x${'B'.repeat(64)}`, `0x${'b'.repeat(63)}`, `0x${'b'.repeat(64)}\n`,
  '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '2024-08-08T12:00:00', '2024-08-08T12:00:00.123+02:00', '2024-08-08T12:00:00+2:00', '2024-08-08 12:00:00Z',
  'order-created', 'order-canceled', 'trade', 'fill', `0x${'c'.repeat(64)}`, `0x${'c'.repeat(40)}`,
  'BUY', 'SELL', 'GTC', 'IOC', 'FOK', 'NONE', 'POST_ONLY', '4294967295', '4294967296', '61', '62', (1n << 96n).toString(), `0x${'0'.repeat(40)}`,
  `0x${'ab'.repeat(65)}`, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(33)}`, '0x', 'executeBatch', 'a'.repeat(64), 'a'.repeat(65),
  'response', 'outcome', 'error', 'BROADCAST', 'REJECTED', 'UNKNOWN', 'CONFIRMED', 'REVERTED', 'DROPPED', 'DYNAMIC_FEE', 'SET_CODE', 'set_code',
];

/** Every path to a value inside `value`. */
export function paths(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...paths(item, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) out.push(...paths(value[key]!, [...prefix, key]));
  return out;
}

/** `value` with the thing at `path` replaced by `replacement`, or removed when it is undefined. */
export function mutate(value: Json, path: ReadonlyArray<string | number>, replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  let parent = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (replacement !== undefined) parent[last] = replacement;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

/** JSON text of `value` with a `__proto__` field first in the object at `path`, or undefined when that is not an object. */
export function withProto(value: Json, path: ReadonlyArray<string | number>): string | undefined {
  let inserted = false;
  const write = (node: Json, at: number, onPath: boolean): string => {
    if (Array.isArray(node)) return `[${node.map((item, i) => write(item, at + 1, onPath && path[at] === i)).join(',')}]`;
    if (typeof node !== 'object' || node === null) return JSON.stringify(node);
    const fields = Object.keys(node).map((key) => `${JSON.stringify(key)}:${write(node[key]!, at + 1, onPath && path[at] === key)}`);
    if (onPath && at === path.length) {
      inserted = true;
      fields.unshift('"__proto__":{"x":1}');
    }
    return `{${fields.join(',')}}`;
  };
  const text = write(value, 0, true);
  return inserted ? text : undefined;
}

/** The prototype of every object inside `value` (a `__proto__` field must not become one). */
function prototypes(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  const inner = Object.values(value).flatMap((item) => prototypes(item));
  return [Object.getPrototypeOf(value), ...inner];
}

/** The reader's answer must be the schema's output, byte for byte, whenever it gives one. */
export function agrees(reader: FastReader<unknown>, schema: z.ZodType, value: Json): 'read' | 'deferred' {
  const read = reader(value);
  if (read === NO_MATCH) return 'deferred';
  const parsed = schema.safeParse(value);
  expect(parsed.success).toBe(true);
  expect(JSON.stringify(read, withBigints)).toBe(JSON.stringify(parsed.data, withBigints));
  expect(read).toEqual(parsed.data);
  expect(prototypes(read)).toEqual(prototypes(parsed.data));
  return 'read';
}

/**
 * Checks `reader` against `schema` on every near miss at every place of `value`, and on a
 * `__proto__` field in each of its objects; returns how many the reader left to the schema.
 */
export function checkNearMisses(reader: FastReader<unknown>, schema: z.ZodType, value: Json): number {
  let deferred = 0;
  for (const path of paths(value)) {
    for (const replacement of [...nearMisses, undefined]) {
      if (agrees(reader, schema, mutate(value, path, replacement)) === 'deferred') deferred += 1;
    }
    // zod drops an unknown `__proto__`; the reader leaves such an answer to zod.
    const text = withProto(value, path);
    if (text !== undefined) agrees(reader, schema, JSON.parse(text) as Json);
  }
  return deferred;
}

/**
 * The two tests every fast reader gets: it reads every valid value (from `valid`), exactly as
 * `schema` does, and never reads a near miss differently (`nearMissRuns` values, each mutated at
 * every place).
 */
export function itAgreesWithSchema(reader: FastReader<unknown>, schema: z.ZodType, valid: fc.Arbitrary<unknown>, nearMissRuns: number): void {
  it('reads every valid value, exactly as the schema does (transforms, unknown fields, key order)', () => {
    fc.assert(
      fc.property(valid, (value) => {
        expect(agrees(reader, schema, value as Json)).toBe('read');
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('never accepts what the schema refuses, nor reads it differently: every near miss at every place', () => {
    let deferred = 0;
    fc.assert(
      fc.property(valid, (value) => {
        deferred += checkNearMisses(reader, schema, value as Json);
      }),
      { ...fuzzSettings({ numRuns: nearMissRuns }), endOnFailure: true },
    );
    expect(deferred).toBeGreaterThan(100);
  });
}
