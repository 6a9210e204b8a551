import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, formatJsonPath, parseStrictJson, type JsonValue } from '../../src/protocol/strict-json.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

/** Inserts a duplicate of `key` into the object reached by `route` inside `value`, as JSON text. */
function withDuplicate(value: JsonValue, route: number[], key: string): { text: string; path: (string | number)[] } {
  const path: (string | number)[] = [];
  const write = (node: JsonValue, depth: number): string => {
    if (Array.isArray(node)) {
      const step = route[depth];
      if (step !== undefined && node.length > 0) {
        const index = step % node.length;
        const child = node[index]!;
        if (typeof child === 'object' && child !== null) {
          path.push(index);
          return `[${node.map((item, i) => (i === index ? write(item, depth + 1) : JSON.stringify(item))).join(',')}]`;
        }
      }
      path.push(node.length, key);
      return `[${[...node.map((item) => JSON.stringify(item)), `{"${key}":1,"${key}":2}`].join(',')}]`;
    }
    if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node).filter((k) => k !== key);
      const step = route[depth];
      if (step !== undefined && keys.length > 0) {
        const childKey = keys[step % keys.length]!;
        const child = node[childKey]!;
        if (typeof child === 'object' && child !== null) {
          path.push(childKey);
          return `{${keys.map((k) => `${JSON.stringify(k)}:${k === childKey ? write(child, depth + 1) : JSON.stringify(node[k])}`).join(',')}}`;
        }
      }
      path.push(key);
      const entries = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(node[k])}`);
      return `{${[...entries, `"${key}":1`, `"${key}":2`].join(',')}}`;
    }
    return JSON.stringify(node);
  };
  const text = write(value, 0);
  return { text, path };
}

const json = fc.jsonValue({ maxDepth: 5 }) as fc.Arbitrary<JsonValue>;
const container = fc.oneof(fc.array(json, { minLength: 1, maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), json, { minKeys: 1, maxKeys: 4 })) as fc.Arbitrary<JsonValue>;

describe('parseStrictJson', () => {
  it('parses whatever JSON.stringify writes, to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(JSON.stringify(parseStrictJson(JSON.stringify(value, null, 1))))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      fuzzSettings(),
    );
  });

  it('finds a duplicate key wherever it is placed, with its path', () => {
    fc.assert(
      fc.property(container, fc.array(fc.nat(), { maxLength: 6 }), fc.constantFrom('dup', 'nonce', '__proto__', 'a b'), (value, route, key) => {
        const { text, path } = withDuplicate(value, route, key);
        // JSON.parse hides what we must find.
        expect(() => JSON.parse(text)).not.toThrow();
        let caught: unknown;
        try {
          parseStrictJson(text);
        } catch (error) {
          caught = error;
        }
        expect(caught).toMatchObject({ code: 'PROTOCOL_DUPLICATE_FIELD' });
        expect((caught as { details: { path: string } }).details.path).toBe(formatJsonPath(path));
      }),
      fuzzSettings(),
    );
  });

  it('reports the exact path of a nested duplicate', () => {
    expect(() => parseStrictJson('{"payload":{"orders":[{"price":"1"},{"price":"1","price":"2"}]}}')).toThrowError(
      expect.objectContaining({ code: 'PROTOCOL_DUPLICATE_FIELD', details: { path: '$.payload.orders[1].price' } }),
    );
  });

  it('refuses malformed JSON with PROTOCOL_INVALID_JSON and never crashes', () => {
    for (const bad of ['', '{', '{"a"}', '{"a":}', '[1,]', '{"a":1,}', 'nul', '"\\x"', '"a', '01', '1 2', '{"a":1}x', '"\u0001"']) {
      expect(() => parseStrictJson(bad), bad).toThrowError(expect.objectContaining({ code: 'PROTOCOL_INVALID_JSON' }));
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          expect(parseStrictJson(text)).toEqual(JSON.parse(text));
        } catch (error) {
          expect(error).toMatchObject({ code: expect.stringMatching(/^PROTOCOL_(INVALID_JSON|DUPLICATE_FIELD)$/) });
        }
      }),
      fuzzSettings(),
    );
  });

  it('refuses nesting deeper than the limit instead of overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => parseStrictJson(deep)).toThrowError(expect.objectContaining({ code: 'PROTOCOL_INVALID_JSON' }));
    const ok = '['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH);
    expect(parseStrictJson(ok)).toBeInstanceOf(Array);
  });

  it('keeps __proto__ as plain data', () => {
    const value = parseStrictJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
