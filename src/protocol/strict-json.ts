/**
 * A JSON parser that sees every key. `JSON.parse` silently keeps the last of two equal keys; the
 * relay must refuse such requests, so this parser reports the first duplicate with its JSON path.
 * Objects are built without a prototype, so keys like `__proto__` are plain data.
 */
import { BaseError } from '../core/base-error.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Formats a path of keys and indexes as `$.payload.orders[2].price`. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = '$';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`;
  }
  return out;
}

const enum Char {
  Tab = 9,
  Newline = 10,
  Return = 13,
  Space = 32,
  Quote = 34,
  Comma = 44,
  Minus = 45,
  Colon = 58,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  OpenBrace = 123,
  CloseBrace = 125,
}

/** Deeper nesting is refused before it can exhaust the stack. */
export const MAX_DEPTH = 64;

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class StrictJsonParser {
  #pos = 0;
  readonly #path: (string | number)[] = [];

  constructor(private readonly text: string) {}

  parse(): JsonValue {
    this.#skipWhitespace();
    const value = this.#value();
    this.#skipWhitespace();
    if (this.#pos !== this.text.length) this.#fail('unexpected data after the JSON value');
    return value;
  }

  #fail(message: string): never {
    throw new BaseError('PROTOCOL_INVALID_JSON', `invalid JSON at offset ${this.#pos}: ${message}`, {
      details: { offset: this.#pos, path: formatJsonPath(this.#path) },
    });
  }

  #skipWhitespace(): void {
    const { text } = this;
    while (this.#pos < text.length) {
      const c = text.charCodeAt(this.#pos);
      if (c !== Char.Space && c !== Char.Newline && c !== Char.Return && c !== Char.Tab) return;
      this.#pos++;
    }
  }

  #expect(char: number, what: string): void {
    if (this.text.charCodeAt(this.#pos) !== char) this.#fail(`expected ${what}`);
    this.#pos++;
  }

  #value(): JsonValue {
    if (this.#path.length > MAX_DEPTH) this.#fail(`nesting deeper than ${MAX_DEPTH}`);
    const c = this.text.charCodeAt(this.#pos);
    if (c === Char.OpenBrace) return this.#object();
    if (c === Char.OpenBracket) return this.#array();
    if (c === Char.Quote) return this.#string();
    if (c === Char.Minus || (c >= 48 && c <= 57)) return this.#number();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.#pos)) {
        this.#pos += word.length;
        return value;
      }
    }
    return this.#fail('expected a JSON value');
  }

  #object(): JsonValue {
    this.#pos++;
    const object = Object.create(null) as Record<string, JsonValue>;
    const seen = new Set<string>();
    this.#skipWhitespace();
    if (this.text.charCodeAt(this.#pos) === Char.CloseBrace) {
      this.#pos++;
      return object;
    }
    for (;;) {
      this.#skipWhitespace();
      if (this.text.charCodeAt(this.#pos) !== Char.Quote) this.#fail('expected a field name');
      const key = this.#string();
      if (seen.has(key)) {
        this.#path.push(key);
        const path = formatJsonPath(this.#path);
        throw new BaseError('PROTOCOL_DUPLICATE_FIELD', `duplicate field ${path}`, { details: { path } });
      }
      seen.add(key);
      this.#skipWhitespace();
      this.#expect(Char.Colon, "':'");
      this.#skipWhitespace();
      this.#path.push(key);
      object[key] = this.#value();
      this.#path.pop();
      this.#skipWhitespace();
      const next = this.text.charCodeAt(this.#pos++);
      if (next === Char.CloseBrace) return object;
      if (next !== Char.Comma) {
        this.#pos--;
        this.#fail("expected ',' or '}'");
      }
    }
  }

  #array(): JsonValue {
    this.#pos++;
    const array: JsonValue[] = [];
    this.#skipWhitespace();
    if (this.text.charCodeAt(this.#pos) === Char.CloseBracket) {
      this.#pos++;
      return array;
    }
    for (;;) {
      this.#skipWhitespace();
      this.#path.push(array.length);
      array.push(this.#value());
      this.#path.pop();
      this.#skipWhitespace();
      const next = this.text.charCodeAt(this.#pos++);
      if (next === Char.CloseBracket) return array;
      if (next !== Char.Comma) {
        this.#pos--;
        this.#fail("expected ',' or ']'");
      }
    }
  }

  #string(): string {
    const { text } = this;
    const start = ++this.#pos;
    // Fast path: no escapes.
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === Char.Quote) {
        this.#pos = i + 1;
        return text.slice(start, i);
      }
      if (c === Char.Backslash || c < 0x20) break;
    }
    let out = '';
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === Char.Quote) {
        this.#pos = i + 1;
        return out;
      }
      if (c < 0x20) {
        this.#pos = i;
        this.#fail('control character in a string');
      }
      if (c !== Char.Backslash) {
        out += text[i];
        i++;
        continue;
      }
      const escape = text[i + 1];
      const simple = escape === undefined ? undefined : ({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[escape];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        this.#pos = i;
        this.#fail('invalid escape in a string');
      }
    }
    this.#pos = i;
    return this.#fail('unterminated string');
  }

  #number(): number {
    numberPattern.lastIndex = this.#pos;
    const match = numberPattern.exec(this.text);
    if (!match) this.#fail('invalid number');
    this.#pos += match[0].length;
    return Number(match[0]);
  }
}

/**
 * Parses JSON text, refusing duplicate fields at any depth.
 * Throws PROTOCOL_INVALID_JSON or PROTOCOL_DUPLICATE_FIELD with `details.path`.
 *
 * @example parseStrictJson('{"a":1,"a":2}') // throws: duplicate field $.a
 */
export function parseStrictJson(text: string): JsonValue {
  return new StrictJsonParser(text).parse();
}
