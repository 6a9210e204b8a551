/**
 * The transactions the venue's chain carries, and what executing one does to the venue model.
 *
 * - `batch` and `replace` run the matching engine's atomic operations for an account. A relayed
 *   one carries a `guard` that the contract re-checks at execution, against the block's time:
 *   the signer still holds TRADE, the authNonce is still the account's, the deadline has not passed,
 *   the wallet is still delegated. System transactions (background flow) carry no guard.
 * - `authorize` installs a signer grant (and, with an EIP-7702 authorization, the wallet's
 *   delegation), opening the owner's account if it has none.
 *
 * A failed check or an engine rejection reverts the transaction: nothing changes, and the reason
 * is `CODE: message` with a relay error code.
 */
import type { RelayErrorCodeName } from '../protocol/constants.ts';
import { Permission } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { MatchingEngine } from './matching-engine.ts';
import type { SignerRegistry } from './signer-registry.ts';
import type { VenueEvent } from './venue-events.ts';

/** What the trading-wallet contract re-checks when a relayed intent executes. */
export interface IntentGuard {
  readonly wallet: Address;
  readonly authNonce: bigint;
  /** Unix seconds. */
  readonly deadline: bigint;
  /** The delegate the wallet must still point to. */
  readonly delegate: Address;
}

export interface BatchTx {
  readonly kind: 'batch';
  readonly accountId: bigint;
  readonly market: Address;
  readonly cancelSlotIdxs: readonly number[];
  readonly expectedOrderIds: readonly bigint[];
  readonly orders: readonly OrderIntent[];
  readonly guard?: IntentGuard;
}

export interface ReplaceTx {
  readonly kind: 'replace';
  readonly accountId: bigint;
  readonly market: Address;
  readonly ops: readonly PackedOp[];
  readonly expectedOrderIds: readonly bigint[];
  readonly guard?: IntentGuard;
}

export interface AuthorizeTx {
  readonly kind: 'authorize';
  /** The account's owner (opened at execution when it has no account yet). */
  readonly owner: Address;
  readonly signer: Address;
  readonly permissions: number;
  readonly expiry: bigint;
  /** The delegation an EIP-7702 authorization installs on `signer`, or null. */
  readonly delegate: Address | null;
}

export type VenueTx = BatchTx | ReplaceTx | AuthorizeTx;

/** What the chain carries: a venue transaction and where it came from (relay txs get outcomes). */
export interface QueuedTx {
  readonly origin: 'relay' | 'system';
  readonly tx: VenueTx;
  /**
   * A system transaction whose content is decided only when its block executes it, from the state
   * the transactions before it in the block left (a backtest's fills); `tx` stands for it until then.
   */
  readonly decide?: () => VenueTx;
}

export type VenueTxResult =
  | { readonly ok: true; readonly events: readonly VenueEvent[]; readonly markets: readonly Address[] }
  | { readonly ok: false; readonly code: RelayErrorCodeName; readonly message: string };

export interface VenueTxContext {
  readonly engine: MatchingEngine;
  readonly registry: SignerRegistry;
}

/** Block time in unix seconds (only guarded transactions need it). */
function blockSeconds(blockTimeMs: number): bigint {
  return BigInt(Math.floor(blockTimeMs / 1000));
}

function revert(code: RelayErrorCodeName, message: string): VenueTxResult {
  return { ok: false, code, message };
}

function guardProblem(registry: SignerRegistry, accountId: bigint, guard: IntentGuard, blockSec: bigint): VenueTxResult | null {
  if (guard.deadline < blockSec) return revert('DEADLINE_EXPIRED', `deadline ${guard.deadline} passed at block time ${blockSec}`);
  if (registry.delegation(guard.wallet)?.delegate !== guard.delegate) {
    return revert('WALLET_NOT_DELEGATED', `wallet ${guard.wallet} is no longer delegated to ${guard.delegate}`);
  }
  if (!registry.holds(accountId, guard.wallet, Permission.TRADE, blockSec)) {
    return revert('SIGNER_NOT_AUTHORIZED', `wallet ${guard.wallet} no longer holds TRADE on account ${accountId}`);
  }
  const authNonce = registry.authNonce(accountId);
  if (authNonce !== guard.authNonce) return revert('AUTH_NONCE_MISMATCH', `authNonce is ${authNonce}, the intent has ${guard.authNonce}`);
  return null;
}

/**
 * Executes one venue transaction at block time `blockTimeMs`.
 *
 * @example executeVenueTx({ engine, registry }, { kind: 'batch', accountId, market, cancelSlotIdxs: [], expectedOrderIds: [], orders }, now)
 */
export function executeVenueTx(context: VenueTxContext, tx: VenueTx, blockTimeMs: number): VenueTxResult {
  const { engine, registry } = context;
  switch (tx.kind) {
    case 'batch':
    case 'replace': {
      if (tx.guard !== undefined) {
        const problem = guardProblem(registry, tx.accountId, tx.guard, blockSeconds(blockTimeMs));
        if (problem !== null) return problem;
      }
      // The transaction holds the engine's parameters (a copy per background order is only garbage).
      const result = tx.kind === 'batch' ? engine.executeBatch(tx) : engine.executeReplace(tx);
      if (!result.ok) return revert(result.code, result.message);
      return { ok: true, events: result.events, markets: [tx.market] };
    }
    case 'authorize': {
      const account = engine.accounts.open(tx.owner);
      registry.grant(account.id, tx.signer, { permissions: tx.permissions, expiry: tx.expiry });
      if (tx.delegate !== null) registry.setDelegation(tx.signer, tx.delegate);
      return { ok: true, events: [], markets: [] };
    }
  }
}
