/**
 * Plain decimal text -> integer units, digit by digit, without regular expressions or
 * intermediate strings: the hot path of depth snapshots and trades. Grammar as `isDecimalString`
 * (`[0-9]+(\.[0-9]+)?`); digits beyond the precision must be zeros (`61837.63000000` is exactly
 * 6183763 at two decimals), anything else is not representable.
 *
 * Digits are accumulated in a JS number while that is exact (below 2^53), then turned into a bigint
 * once; longer values take an exact bigint path. Money never stays a number.
 */
import { BaseError } from '../core/base-error.ts';

export const ScanStatus = {
  OK: 0,
  /** Not a plain non-negative decimal. */
  NOT_DECIMAL: 1,
  /** A non-zero digit beyond the precision. */
  TOO_PRECISE: 2,
} as const;
export type ScanStatus = (typeof ScanStatus)[keyof typeof ScanStatus];

/** Above this, `value * 10 + 9` may leave the exact range of a double. */
const EXACT_LIMIT = 900_719_925_474_099;
const POW10: readonly number[] = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * A reusable reader: `read` leaves the end position in `pos` and the outcome in `status`, so the
 * hot loop allocates nothing but the resulting bigint.
 *
 * @example
 * const scanner = new DecimalScanner();
 * scanner.read('"61837.63000000"', 1, 2); // 6183763n; scanner.pos === 15 (the closing quote)
 */
export class DecimalScanner {
  /** Position of the first character after the number. */
  pos = 0;
  status: ScanStatus = ScanStatus.OK;

  read(text: string, start: number, decimals: number): bigint {
    let pos = start;
    let value = 0;
    let exact = true;
    let c = text.charCodeAt(pos);
    while (c >= 48 && c <= 57) {
      if (value >= EXACT_LIMIT) exact = false;
      else value = value * 10 + (c - 48);
      c = text.charCodeAt(++pos);
    }
    if (pos === start) return this.#fail(pos, ScanStatus.NOT_DECIMAL);
    const integerEnd = pos;
    let kept = 0;
    let status: ScanStatus = ScanStatus.OK;
    if (c === 46) {
      const fractionStart = ++pos;
      c = text.charCodeAt(pos);
      while (c >= 48 && c <= 57) {
        if (kept < decimals) {
          if (value >= EXACT_LIMIT) exact = false;
          else value = value * 10 + (c - 48);
          kept++;
        } else if (c !== 48) {
          status = ScanStatus.TOO_PRECISE;
        }
        c = text.charCodeAt(++pos);
      }
      if (pos === fractionStart) return this.#fail(pos, ScanStatus.NOT_DECIMAL);
    }
    this.pos = pos;
    this.status = status;
    if (status !== ScanStatus.OK) return 0n;
    const pad = decimals - kept;
    if (exact && pad < POW10.length) {
      const scaled = value * POW10[pad]!;
      if (scaled <= EXACT_LIMIT) return BigInt(scaled);
    }
    return this.#exact(text, start, integerEnd, kept, pad);
  }

  /** The slow, exact path for values beyond 2^53 units. */
  #exact(text: string, start: number, integerEnd: number, kept: number, pad: number): bigint {
    const integer = text.slice(start, integerEnd);
    const fraction = kept > 0 ? text.slice(integerEnd + 1, integerEnd + 1 + kept) : '';
    return BigInt(integer + fraction) * 10n ** BigInt(pad);
  }

  #fail(pos: number, status: ScanStatus): bigint {
    this.pos = pos;
    this.status = status;
    return 0n;
  }
}

const shared = new DecimalScanner();

/**
 * One wire decimal -> units at `decimals` decimals. A value that is not a plain decimal is a
 * `PROTOCOL_SCHEMA_MISMATCH`; one with a non-zero digit beyond the precision is
 * `UNITS_NOT_REPRESENTABLE`. `path` names the value in the message (e.g. `$.bids[3][0]`).
 *
 * @example decimalToUnits('0.02000000', 5, '$[0].qty') // 2000n
 */
export function decimalToUnits(text: string, decimals: number, path: string): bigint {
  const units = shared.read(text, 0, decimals);
  if (shared.status === ScanStatus.OK && shared.pos === text.length) return units;
  throw scanError(shared.status === ScanStatus.TOO_PRECISE ? ScanStatus.TOO_PRECISE : ScanStatus.NOT_DECIMAL, text, decimals, path);
}

/** The BaseError of a failed scan. */
export function scanError(status: ScanStatus, text: string, decimals: number, path: string): BaseError {
  if (status === ScanStatus.TOO_PRECISE) {
    return new BaseError('UNITS_NOT_REPRESENTABLE', `${path} ${JSON.stringify(text)} has more than ${decimals} decimals`, {
      details: { path, value: text, decimals },
    });
  }
  return new BaseError('PROTOCOL_SCHEMA_MISMATCH', `${path} is not a plain non-negative decimal string`, {
    details: { path, value: text.length > 64 ? `${text.slice(0, 64)}…` : text },
  });
}
