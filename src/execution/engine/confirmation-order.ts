/**
 * CONFIRMED outcomes handed to the portfolio in nonce order per market (docs/execution.md
 * "Reconciliation"): the portfolio infers slots by replaying placements in confirmation order,
 * which must be their transactions' order, while a reconciled request can learn its fate after a
 * later one. An outcome waits while a request of the same market with a lower nonce is unresolved;
 * while the journal is restored, every outcome waits until all its requests are known.
 */
import type { Address, Hex } from '../../protocol/encoding.ts';
import { planMarket, type RequestPlan } from '../intent-plan.ts';
import type { Portfolio } from '../portfolio.ts';

/** A CONFIRMED outcome waiting for the portfolio. */
export interface PendingConfirmation {
  readonly requestId: string;
  readonly market: Address;
  readonly nonce: bigint;
  readonly txHash: Hex | undefined;
}

/** What an unresolved request tells of the order: its market (from its plan) and nonce. */
export interface UnresolvedNonce {
  readonly plan: RequestPlan | undefined;
  readonly nonce: bigint;
}

function byNonce(a: { readonly nonce: bigint }, b: { readonly nonce: bigint }): number {
  return a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0;
}

export class ConfirmationOrder {
  readonly #portfolio: Pick<Portfolio, 'applyOutcome'>;
  readonly #unresolved: () => Iterable<UnresolvedNonce>;
  /** Not yet given to the portfolio, in nonce order. */
  readonly #waiting: PendingConfirmation[] = [];
  #held = false;

  /** `unresolved`: the requests without a final status now. */
  constructor(portfolio: Pick<Portfolio, 'applyOutcome'>, unresolved: () => Iterable<UnresolvedNonce>) {
    this.#portfolio = portfolio;
    this.#unresolved = unresolved;
  }

  /** A request's confirmation, in its place (given at the next `flush`). */
  queue(confirmation: PendingConfirmation): void {
    this.#waiting.push(confirmation);
    this.#waiting.sort(byNonce);
  }

  /** While the journal is restored: nothing is given until `release`. */
  hold(): void {
    this.#held = true;
  }

  /** A confirmed placement replayed from the journal (put in order at `release`). */
  replay(confirmation: PendingConfirmation): void {
    this.#waiting.push(confirmation);
  }

  /** Every restored request is known: the confirmations go, in nonce order. */
  release(): void {
    this.#held = false;
    this.#waiting.sort(byNonce);
    this.flush();
  }

  /** Gives the portfolio every confirmation no lower nonce of its market holds back. */
  flush(): void {
    if (this.#waiting.length === 0 || this.#held) return;
    const lowest = new Map<Address, bigint>();
    for (const req of this.#unresolved()) {
      const market = req.plan === undefined ? undefined : planMarket(req.plan);
      if (market === undefined) continue;
      const key = market.toLowerCase() as Address;
      const known = lowest.get(key);
      if (known === undefined || req.nonce < known) lowest.set(key, req.nonce);
    }
    const waiting: PendingConfirmation[] = [];
    for (const confirmation of this.#waiting) {
      const blocker = lowest.get(confirmation.market);
      if (blocker !== undefined && blocker < confirmation.nonce) {
        waiting.push(confirmation);
        continue;
      }
      this.#portfolio.applyOutcome(confirmation.requestId, 'CONFIRMED', confirmation.txHash === undefined ? {} : { txHash: confirmation.txHash });
    }
    this.#waiting.length = 0;
    this.#waiting.push(...waiting);
  }
}
