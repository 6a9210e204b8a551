/**
 * What an invariant is: a name, a sentence saying what must hold, and a pure check of a RunRecord
 * that returns the first violation in time, or nothing. The kit's own invariants (this folder) and
 * an author's (`defineInvariant`) have the same shape, so a runner checks them all alike and a
 * failure names the invariant, the time and what broke, from the record alone.
 */
import { BaseError } from '../../core/base-error.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { RunRecord } from '../run-record.ts';

export interface InvariantViolation {
  /** The invariant's name, e.g. `position-limit`. */
  readonly invariant: string;
  /** When it broke, ms after the strategy started (as every `at` of the record). */
  readonly at: number;
  /** What broke, naming the intent, order, fill or request and the values. */
  readonly message: string;
  /** The same facts as values (bigints as decimal strings, so they print and serialize). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What a check finds; `defineInvariant` adds the invariant's name. */
export type InvariantFinding = Omit<InvariantViolation, 'invariant'>;

export interface InvariantOptions {
  /** The strategy's own position limit, size units of each market, from its params (undefined: none). */
  readonly positionLimit?: (params: unknown, market: MarketSpec) => bigint | undefined;
  /** The strategy quotes on purpose while its feed is stale: `stale-feed` does not apply. */
  readonly quotesBlind?: boolean;
  /** Blocks an order may rest after the feed went stale. Default 3 (`DEFAULT_STALE_BLOCKS`). */
  readonly staleBlocks?: number;
  /** Blocks after a kill-switch trip by which every order must be gone. Default 1 (`DEFAULT_KILL_BLOCKS`). */
  readonly killBlocks?: number;
  /**
   * ms more a deadline (kill switch, stale feed) allows when the connection failed the engine before
   * it (a request rejected or never sent, a resend, an outcome withheld): what the engine needs to
   * resend or reconcile (its reconcile grace). Default 10000
   * (`DEFAULT_FAULT_GRACE_MS`).
   */
  readonly faultGraceMs?: number;
}

export const DEFAULT_STALE_BLOCKS = 3;
export const DEFAULT_KILL_BLOCKS = 1;
export const DEFAULT_FAULT_GRACE_MS = 10_000;

export interface Invariant {
  /** kebab-case, unique in a list. */
  readonly name: string;
  /** One or two sentences: what must hold, and why. */
  readonly description: string;
  /** The first violation in time, or undefined. Pure: reads the record and the options only. */
  check(record: RunRecord, options: InvariantOptions): InvariantViolation | undefined;
}

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * An invariant from a name, a description and a check that returns what it found (without the
 * name). Throws STRATEGY_CHECK_INVALID when the name is not kebab-case, the description is empty or
 * the check is not a function.
 *
 * @example
 * const noIoc = defineInvariant('no-ioc', 'The strategy never takes liquidity.', (record) => {
 *   const taking = record.intents.find(({ intent }) => intent.type === 'PlaceAndCancel' && intent.orders.some((order) => order.tif !== 'GTC'));
 *   return taking && { at: taking.at, message: `a ${taking.intent.type} at ${taking.at} ms takes liquidity` };
 * });
 */
export function defineInvariant(
  name: string,
  description: string,
  check: (record: RunRecord, options: InvariantOptions) => InvariantFinding | undefined,
): Invariant {
  const problems: string[] = [];
  if (typeof name !== 'string' || !NAME.test(name)) problems.push(`name ${JSON.stringify(name)} must be kebab-case (e.g. quotes-on-skew-side)`);
  if (typeof description !== 'string' || description.trim() === '') problems.push('description must be a non-empty sentence');
  if (typeof check !== 'function') problems.push('check must be a function (record, options) => finding | undefined');
  if (problems.length > 0) throw new BaseError('STRATEGY_CHECK_INVALID', `invariant ${String(name)}: ${problems.join('; ')}`, { details: { problems } });
  return Object.freeze({
    name,
    description,
    check(record: RunRecord, options: InvariantOptions): InvariantViolation | undefined {
      const found = check(record, options);
      return found === undefined ? undefined : { invariant: name, ...found };
    },
  });
}

/**
 * Every invariant's first violation, in the order of `invariants` (empty when all hold).
 *
 * @example checkInvariants(record, DEFAULT_INVARIANTS, { staleBlocks: 5 }) // [{ invariant: 'order-rate', at: 1200, message: '…' }]
 */
export function checkInvariants(record: RunRecord, invariants: readonly Invariant[], options: InvariantOptions = {}): InvariantViolation[] {
  const violations: InvariantViolation[] = [];
  for (const invariant of invariants) {
    const violation = invariant.check(record, options);
    if (violation !== undefined) violations.push(violation);
  }
  return violations;
}

/** Keeps the earliest of the findings offered (the first offered on a tie). */
export class FirstFinding {
  #first: InvariantFinding | undefined;

  offer(finding: InvariantFinding | undefined): void {
    if (finding !== undefined && (this.#first === undefined || finding.at < this.#first.at)) this.#first = finding;
  }

  /** The earliest, or undefined. */
  get first(): InvariantFinding | undefined {
    return this.#first;
  }
}
