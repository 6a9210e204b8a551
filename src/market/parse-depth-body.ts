/**
 * Depth response body (JSON text) -> `OrderBook`, in one pass over the text: the hot path of the
 * depth poller when it holds the body. The levels are read straight into bigint units, without
 * building the `[price, size]` string arrays that `JSON.parse` would, and without zod per level:
 * each level must be exactly `[ "<decimal>" , "<decimal>" ]` (JSON whitespace allowed) and each
 * decimal is checked by the digit scanner. Only the small envelope (`lastUpdateId`, `E`, `T`, any
 * extra fields) goes through zod (`depthSchema` without its levels).
 *
 * Errors: `PROTOCOL_INVALID_JSON` (not JSON), `PROTOCOL_SCHEMA_MISMATCH` (JSON, but not a depth
 * record; with the JSON path), `PROTOCOL_DUPLICATE_FIELD` (`bids` or `asks` twice),
 * `UNITS_NOT_REPRESENTABLE` (a decimal finer than the market's precision).
 */
import { BaseError } from '../core/base-error.ts';
import { depthSchema } from '../protocol/market-data.ts';
import { DecimalScanner, ScanStatus, scanError } from './decimal-scanner.ts';
import { marketDecimals, type MarketPrecision } from './market-precision.ts';
import { OrderBook } from './order-book-model.ts';

const envelopeSchema = depthSchema.omit({ bids: true, asks: true });

const enum Char {
  Tab = 9,
  Newline = 10,
  Return = 13,
  Space = 32,
  Quote = 34,
  Comma = 44,
  Colon = 58,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  OpenBrace = 123,
  CloseBrace = 125,
}

class DepthBodyParser {
  pos = 0;
  readonly scanner = new DecimalScanner();

  constructor(
    readonly text: string,
    readonly priceDecimals: number,
    readonly sizeDecimals: number,
  ) {}

  invalidJson(message: string): never {
    throw new BaseError('PROTOCOL_INVALID_JSON', `invalid JSON at offset ${this.pos}: ${message}`, { details: { offset: this.pos } });
  }

  mismatch(path: string, message: string): never {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `depth response: ${path} ${message}`, { details: { path, offset: this.pos } });
  }

  /** Skips JSON whitespace and returns the next character code (NaN at the end). */
  ws(): number {
    const text = this.text;
    let pos = this.pos;
    let c = text.charCodeAt(pos);
    while (c === Char.Space || c === Char.Newline || c === Char.Return || c === Char.Tab) c = text.charCodeAt(++pos);
    this.pos = pos;
    return c;
  }

  /** A field name; names with escapes are decoded by JSON.parse. */
  key(): string {
    const text = this.text;
    const start = this.pos;
    let pos = start + 1;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) this.invalidJson('unterminated string');
      // JSON forbids raw control characters in strings; JSON.parse would refuse this body.
      if (c < Char.Space) {
        this.pos = pos;
        this.invalidJson('control character in a string');
      }
      if (c === Char.Backslash) {
        escaped = true;
        pos += 2;
        continue;
      }
      pos++;
      if (c === Char.Quote) break;
    }
    this.pos = pos;
    return escaped ? (this.parseSlice(start, pos) as string) : text.slice(start + 1, pos - 1);
  }

  parseSlice(start: number, end: number): unknown {
    try {
      return JSON.parse(this.text.slice(start, end));
    } catch (error) {
      this.pos = start;
      return this.invalidJson(error instanceof Error ? error.message : 'bad value');
    }
  }

  /** Any JSON value, found by bracket matching and then parsed by JSON.parse (the envelope's few fields). */
  genericValue(): unknown {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    let depth = 0;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) break;
      if (c === Char.Quote) {
        pos++;
        for (;;) {
          const s = text.charCodeAt(pos);
          if (Number.isNaN(s)) {
            this.pos = pos;
            this.invalidJson('unterminated string');
          }
          pos += s === Char.Backslash ? 2 : 1;
          if (s === Char.Quote) break;
        }
        if (depth === 0) break;
        continue;
      }
      if (c === Char.OpenBracket || c === Char.OpenBrace) depth++;
      else if (c === Char.CloseBracket || c === Char.CloseBrace) {
        if (depth === 0) break;
        depth--;
        if (depth === 0) {
          pos++;
          break;
        }
      } else if (depth === 0 && c === Char.Comma) break;
      pos++;
    }
    this.pos = pos;
    return this.parseSlice(start, pos);
  }

  /** One decimal string value of a level: `$.<name>[<index>][<column>]`. */
  decimal(decimals: number, name: string, index: number, column: number): bigint {
    if (this.text.charCodeAt(this.pos) !== Char.Quote && this.ws() !== Char.Quote) this.mismatch(`$.${name}[${index}][${column}]`, 'must be a decimal string');
    const start = this.pos + 1;
    const scanner = this.scanner;
    const units = scanner.read(this.text, start, decimals);
    if (scanner.status !== ScanStatus.OK || this.text.charCodeAt(scanner.pos) !== Char.Quote) {
      const end = this.text.indexOf('"', start);
      const value = this.text.slice(start, end < 0 ? start + 64 : end);
      const status = scanner.status === ScanStatus.TOO_PRECISE ? ScanStatus.TOO_PRECISE : ScanStatus.NOT_DECIMAL;
      throw scanError(status, value, decimals, `$.${name}[${index}][${column}]`);
    }
    this.pos = scanner.pos + 1;
    return units;
  }

  /** `[[price, size], ...]` into two arrays, wire order. */
  levels(name: string): { prices: bigint[]; sizes: bigint[] } {
    const prices: bigint[] = [];
    const sizes: bigint[] = [];
    const text = this.text;
    const { priceDecimals, sizeDecimals } = this;
    if (this.ws() !== Char.OpenBracket) this.mismatch(`$.${name}`, 'must be an array');
    this.pos++;
    if (this.ws() === Char.CloseBracket) {
      this.pos++;
      return { prices, sizes };
    }
    for (let i = 0; ; i++) {
      const open = text.charCodeAt(this.pos) === Char.OpenBracket ? Char.OpenBracket : this.ws();
      if (open !== Char.OpenBracket) {
        if (i > 0 && open === Char.CloseBracket) this.invalidJson("unexpected ']' after ','");
        this.mismatch(`$.${name}[${i}]`, 'must be a [price, quantity] pair');
      }
      this.pos++;
      const price = this.decimal(priceDecimals, name, i, 0);
      if (text.charCodeAt(this.pos) !== Char.Comma && this.ws() !== Char.Comma) this.mismatch(`$.${name}[${i}]`, 'must be a [price, quantity] pair');
      this.pos++;
      const size = this.decimal(sizeDecimals, name, i, 1);
      if (text.charCodeAt(this.pos) !== Char.CloseBracket && this.ws() !== Char.CloseBracket) this.mismatch(`$.${name}[${i}]`, 'must be a [price, quantity] pair');
      this.pos++;
      prices.push(price);
      sizes.push(size);
      const after = text.charCodeAt(this.pos);
      const next = after === Char.Comma || after === Char.CloseBracket ? after : this.ws();
      this.pos++;
      if (next === Char.Comma) continue;
      if (next === Char.CloseBracket) return { prices, sizes };
      this.pos--;
      if (Number.isNaN(text.charCodeAt(this.pos))) this.invalidJson('unexpected end');
      this.invalidJson("expected ',' or ']'");
    }
  }

  parse(market: MarketPrecision): OrderBook {
    // No prototype: a `__proto__` field is plain data.
    const envelope = Object.create(null) as Record<string, unknown>;
    let bids: { prices: bigint[]; sizes: bigint[] } | undefined;
    let asks: { prices: bigint[]; sizes: bigint[] } | undefined;
    if (this.ws() !== Char.OpenBrace) {
      // Valid JSON of another type is a schema mismatch; anything else is not JSON.
      this.parseSlice(0, this.text.length);
      this.mismatch('$', 'must be an object');
    }
    this.pos++;
    if (this.ws() === Char.CloseBrace) this.pos++;
    else {
      for (;;) {
        if (this.ws() !== Char.Quote) this.invalidJson('expected a field name');
        const key = this.key();
        if (this.ws() !== Char.Colon) this.invalidJson("expected ':'");
        this.pos++;
        this.ws();
        if (key === 'bids' || key === 'asks') {
          if ((key === 'bids' ? bids : asks) !== undefined) {
            throw new BaseError('PROTOCOL_DUPLICATE_FIELD', `duplicate field $.${key}`, { details: { path: `$.${key}` } });
          }
          if (key === 'bids') bids = this.levels(key);
          else asks = this.levels(key);
        } else {
          envelope[key] = this.genericValue();
        }
        const next = this.ws();
        this.pos++;
        if (next === Char.Comma) continue;
        if (next === Char.CloseBrace) break;
        this.pos--;
        this.invalidJson("expected ',' or '}'");
      }
    }
    if (!Number.isNaN(this.ws())) this.invalidJson('unexpected data after the JSON value');
    if (bids === undefined) this.mismatch('$.bids', 'is missing');
    if (asks === undefined) this.mismatch('$.asks', 'is missing');
    const usual = usualLastUpdateId(envelope);
    if (usual !== undefined) return OrderBook.adoptWireOrder(market, usual, bids, asks);
    const checked = envelopeSchema.safeParse(envelope);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const path = `$${(issue?.path ?? []).map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('')}`;
      throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `depth response: ${path} ${issue?.message ?? 'is invalid'}`, {
        details: { path, issues: checked.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
      });
    }
    return OrderBook.adoptWireOrder(market, checked.data.lastUpdateId, bids, asks);
  }
}

/**
 * `lastUpdateId` of an envelope of the usual shape, which `envelopeSchema` accepts as it is: only
 * `lastUpdateId`, `E` and `T`, each an integer count (`z.int().min(0)`). Undefined for anything
 * else, which zod then checks (and names the problem of).
 */
function usualLastUpdateId(envelope: Record<string, unknown>): number | undefined {
  let lastUpdateId: number | undefined;
  for (const key in envelope) {
    const value = envelope[key];
    if ((key !== 'lastUpdateId' && key !== 'E' && key !== 'T') || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return undefined;
    if (key === 'lastUpdateId') lastUpdateId = value;
  }
  return lastUpdateId;
}

/**
 * Parses a `GET /api/v3/depth` body into an order book in the market's units.
 *
 * @example
 * const book = parseDepthBody(await response.text(), { pricePrecision: 100n, sizePrecision: 10n ** 8n });
 * book.bestAsk(); // { price: 6183764n, size: 154698000n }
 */
export function parseDepthBody(text: string, market: MarketPrecision): OrderBook {
  const decimals = marketDecimals(market);
  return new DepthBodyParser(text, decimals.price, decimals.size).parse(market);
}
