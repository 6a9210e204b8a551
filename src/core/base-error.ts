import { errorCodes, type ErrorCode } from './error-codes.ts';

/** Structured, JSON-safe context of an error. Never put secrets here. */
export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface BaseErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/**
 * The one error type of clobbot: a stable `code` (see `docs/errors.md`), a short message,
 * structured `details` and the underlying `cause`.
 *
 * @example
 * throw new BaseError('UNITS_OUT_OF_RANGE', 'price exceeds uint32', { details: { price: '4294967296' } });
 */
export class BaseError extends Error {
  override readonly name: string = 'BaseError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  /** The meaning of this error's code, from the codes table. */
  get meaning(): string {
    return errorCodes[this.code];
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when `value` is a BaseError, optionally with the given code. */
export function isBaseError(value: unknown, code?: ErrorCode): value is BaseError {
  return value instanceof BaseError && (code === undefined || value.code === code);
}
