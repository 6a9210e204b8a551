/**
 * Fast readers: hand-written twins of a few zod schemas for hot answers, several times faster than
 * `safeParse` on a large body. A reader returns what the schema would output, or NO_MATCH when
 * the value might not match; the caller then parses with the schema itself, so every refusal (and
 * its typed error and message) still comes from zod. A reader must therefore never accept what
 * its schema refuses, nor output anything else; each has a property test against its schema.
 *
 * The object reader copies zod's output layout (declared keys in shape order, then the unknown
 * keys of a loose object in `for...in` order), so even the key order of the output is the same.
 */

/** "Not sure this matches": parse with the schema instead. */
export const NO_MATCH: unique symbol = Symbol('no match');

export type FastReader<T> = (value: unknown) => T | typeof NO_MATCH;

/** `z.string()`. */
export const anyString: FastReader<string> = (value) => (typeof value === 'string' ? value : NO_MATCH);

/** `z.string().min(1)`. */
export const nonEmptyString: FastReader<string> = (value) => (typeof value === 'string' && value.length > 0 ? value : NO_MATCH);

/** `z.string().nullable()`. */
export const nullableString: FastReader<string | null> = (value) => (value === null || typeof value === 'string' ? value : NO_MATCH);

/** `z.boolean()`. */
export const anyBoolean: FastReader<boolean> = (value) => (typeof value === 'boolean' ? value : NO_MATCH);

/** `z.int().min(min).max(max)` (a safe integer in range). */
export function intIn(min: number, max = Number.MAX_SAFE_INTEGER): FastReader<number> {
  return (value) => (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max ? (value as number) : NO_MATCH);
}

/**
 * A string matching `pattern` (no g or y flag), as is or lowercased (`.regex(…)`, then
 * `.transform(toLowerCase)`). The last string read is remembered: addresses and block times come
 * in runs of the same value.
 */
export function matching<T extends string>(pattern: RegExp, lowercase: boolean): FastReader<T> {
  let lastValue: string | undefined;
  let lastRead: T | undefined;
  return (value) => {
    if (lastValue !== undefined && value === lastValue) return lastRead!;
    if (typeof value !== 'string' || !pattern.test(value)) return NO_MATCH;
    lastValue = value;
    lastRead = (lowercase ? value.toLowerCase() : value) as T;
    return lastRead;
  };
}

/** A string that `accepts` (an exact copy of the schema's refinements); the last one accepted is remembered. */
export function stringWhere(accepts: (text: string) => boolean): FastReader<string> {
  let last: string | undefined;
  return (value) => {
    if (last !== undefined && value === last) return last;
    if (typeof value !== 'string' || !accepts(value)) return NO_MATCH;
    last = value;
    return value;
  };
}

/** `z.array(item)`, with `.max(maxLength)`. */
export function arrayOf<T>(item: FastReader<T>, maxLength = Number.POSITIVE_INFINITY): FastReader<T[]> {
  return (value) => {
    if (!Array.isArray(value) || value.length > maxLength) return NO_MATCH;
    const out: T[] = new Array<T>(value.length);
    for (let i = 0; i < value.length; i++) {
      const read = item(value[i]);
      if (read === NO_MATCH) return NO_MATCH;
      out[i] = read;
    }
    return out;
  };
}

/** The declared fields of `input` read into `out` in shape order; false when one does not match. */
function readFields(keys: readonly string[], readers: ReadonlyArray<FastReader<unknown>>, input: Record<string, unknown>, out: Record<string, unknown>): boolean {
  for (let i = 0; i < keys.length; i++) {
    const read = readers[i]!(input[keys[i]!]);
    if (read === NO_MATCH) return false;
    out[keys[i]!] = read;
  }
  return true;
}

/** `z.looseObject(shape)` whose fields are all required. */
export function looseObject<T>(shape: Readonly<Record<string, FastReader<unknown>>>): FastReader<T> {
  const keys = Object.keys(shape);
  const readers = keys.map((key) => shape[key]!);
  const declared = new Set(keys);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    if (!readFields(keys, readers, input, out)) return NO_MATCH;
    for (const key in input) {
      if (declared.has(key)) continue;
      // zod skips an unknown __proto__; rare enough to leave to it.
      if (key === '__proto__') return NO_MATCH;
      out[key] = input[key];
    }
    return out as T;
  };
}

/** `z.object(shape)` whose fields are all required: unknown keys are dropped. */
export function strippedObject<T>(shape: Readonly<Record<string, FastReader<unknown>>>): FastReader<T> {
  const keys = Object.keys(shape);
  const readers = keys.map((key) => shape[key]!);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
    const out: Record<string, unknown> = {};
    return readFields(keys, readers, value as Record<string, unknown>, out) ? (out as T) : NO_MATCH;
  };
}

/** `z.strictObject(shape)` whose fields are all required: an unknown key is refused. */
export function strictObject<T>(shape: Readonly<Record<string, FastReader<unknown>>>): FastReader<T> {
  const declared = new Set(Object.keys(shape));
  const read = strippedObject<T>(shape);
  return (value) => {
    if (typeof value !== 'object' || value === null) return NO_MATCH;
    for (const key in value) if (!declared.has(key)) return NO_MATCH;
    return read(value);
  };
}

/** `schema.refine(accepts)`. */
export function where<T>(reader: FastReader<T>, accepts: (value: T) => boolean): FastReader<T> {
  return (value) => {
    const read = reader(value);
    return read !== NO_MATCH && accepts(read) ? read : NO_MATCH;
  };
}

/** `schema.nullable()`. */
export function nullable<T>(reader: FastReader<T>): FastReader<T | null> {
  return (value) => (value === null ? null : reader(value));
}

/** `z.enum(values)` (or a `z.literal` of several strings). */
export function oneOf<T extends string>(values: readonly T[]): FastReader<T> {
  const allowed: ReadonlySet<unknown> = new Set(values);
  return (value) => (allowed.has(value) ? (value as T) : NO_MATCH);
}

/** `z.discriminatedUnion(key, options)`: the option named by the value's `key`. */
export function byDiscriminator<T>(key: string, options: Readonly<Record<string, FastReader<T>>>): FastReader<T> {
  const table = new Map(Object.entries(options));
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
    const tag = (value as Record<string, unknown>)[key];
    const option = typeof tag === 'string' ? table.get(tag) : undefined;
    return option === undefined ? NO_MATCH : option(value);
  };
}

/** `z.literal(expected)` for a string. */
export function literal<T extends string>(expected: T): FastReader<T> {
  return (value) => (value === expected ? expected : NO_MATCH);
}
