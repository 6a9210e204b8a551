/**
 * Broken invariants of the venue model throw at once (bad input never does: it is a result value).
 */
import { BaseError, type ErrorDetails } from '../core/base-error.ts';

/** Throws a BaseError saying which invariant broke. */
export function invariantBroken(message: string, details: ErrorDetails = {}): never {
  throw new BaseError('VENUE_INVARIANT_BROKEN', `venue invariant broken: ${message}`, { details });
}
