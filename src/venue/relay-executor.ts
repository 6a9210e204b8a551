/**
 * The relay of the simulated venue: checks a parsed relay call the way the venue's relay and
 * contracts do, and either refuses it (REJECTED with a relay error code) or sponsors it: the
 * transaction gets the sponsor's next nonce and a hash, joins the next block, and the answer is
 * BROADCAST. What depends on the book (expected order ids, balances, order rules) is checked when
 * the block executes; a failure there is a REVERTED outcome, not a rejection.
 *
 * Checks, in order (the first failure answers):
 * - `wallet.execute_batch`, `wallet.execute_replace_by_slot_packed`: market known (UNKNOWN_MARKET);
 *   the EIP-712 signature is canonical and recovers to `wallet` under the trading-wallet domain
 *   (INVALID_SIGNATURE); the wallet is delegated to the trading-wallet delegate (WALLET_NOT_DELEGATED);
 *   it holds an unexpired TRADE grant on `header.accountId` (SIGNER_NOT_AUTHORIZED); `authNonce` is the
 *   account's (AUTH_NONCE_MISMATCH); the nonce is above the wallet's last (NONCE_NOT_INCREASING) and
 *   at most `maxNonceSkewMs` ahead of the clock (NONCE_TOO_FAR_AHEAD); the deadline (Unix s) has not
 *   passed (DEADLINE_EXPIRED); a replacement's packed ops decode (INVALID_REQUEST).
 * - `wallet.cancel_trigger`: the same signature, delegation, grant, authNonce, nonce and deadline
 *   checks, then UNKNOWN_TRIGGER: creating triggers is not supported live, so none is ever active.
 * - `account_core.authorize_account_signer_by_sig`: the signature recovers to `authorizer` under the
 *   account-core domain (INVALID_SIGNATURE); `account` is the account's owner address and the
 *   authorizer is that owner or holds ADMIN on its account (SIGNER_NOT_AUTHORIZED); the nonce was
 *   never used by that owner (NONCE_ALREADY_USED); the deadline has not passed (DEADLINE_EXPIRED); an
 *   expiry (non-zero) is not already past (INVALID_REQUEST). With an EIP-7702 authorization: it
 *   recovers to `wallet` (INVALID_SIGNATURE), and its chain (ours or 0), delegate (the trading-wallet
 *   delegate) and nonce (the wallet's current 7702 nonce) are right (INVALID_REQUEST); the
 *   transaction is then SET_CODE.
 *
 * Replay guards (intent nonces, authorization nonces, 7702 nonces) are consumed when a call is
 * accepted, so a replay of the same signed request is refused at once; the effects (grants,
 * delegation, orders) happen when its block executes.
 *
 * Signature recovery is asynchronous (viem), so `submit` returns a promise; submissions are
 * serialised: each is checked against the state its predecessors left, in call order.
 */
import { isBaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import { Permission, RelayErrorCode, RelayMethod, type RelayErrorCodeName } from '../protocol/constants.ts';
import { accountCoreDomain, tradingWalletDomain } from '../protocol/eip712-types.ts';
import { recoverAuthorization7702Authority } from '../protocol/eip7702.ts';
import type { Address } from '../protocol/encoding.ts';
import {
  recoverAuthorizeAccountSignerSigner,
  recoverBatchIntentSigner,
  recoverCancelTriggerIntentSigner,
  recoverReplaceBySlotIntentSigner,
} from '../protocol/intent-signing.ts';
import type { Authorization7702, AuthorizeAccountSignerIntent, IntentHeader } from '../protocol/intent-types.ts';
import { decodePackedOps, type PackedOp } from '../protocol/packed-ops.ts';
import type { Signed } from '../protocol/relay-payloads.ts';
import type { RelayCall } from '../protocol/relay-request.ts';
import type { ChainTx, TxType } from './chain.ts';
import type { SubmitResult } from './sim-venue.ts';
import type { SignerRegistry } from './signer-registry.ts';
import { sponsoredTxHash } from './venue-hashes.ts';
import type { IntentGuard, QueuedTx, VenueTx } from './venue-transaction.ts';

export { sponsoredTxHash };

/** The relay's settings (from the sim config). */
export interface RelaySettings {
  readonly chainId: number;
  readonly accountCore: Address;
  readonly tradingWalletDelegate: Address;
  /** EIP-712 trading-wallet domain version ("1" by default). */
  readonly tradingWalletDomainVersion: string;
  /** How far (ms) an intent nonce may be ahead of the clock. */
  readonly maxNonceSkewMs: number;
  readonly sponsorAddress: Address;
}

export interface RelayExecutorContext {
  readonly clock: Clock;
  readonly registry: SignerRegistry;
  /** Whether `market` is a market of the venue. */
  readonly isMarket: (market: Address) => boolean;
  /** Queues a transaction for the next block. */
  readonly enqueue: (tx: ChainTx<QueuedTx>) => void;
}

type Rejected = Extract<SubmitResult, { status: 'REJECTED' | 'UNKNOWN' }>;

/** A REJECTED answer with the code's retryability. */
export function rejected(code: RelayErrorCodeName, message: string): Rejected {
  return {
    status: 'REJECTED',
    code,
    message,
    retryable: RelayErrorCode[code].retryable,
    retryAfterMs: null,
    candidateTxHash: null,
    sponsorAddress: null,
    sponsorNonce: null,
  };
}

/** Recovers a signer, mapping a malformed or non-canonical signature to its message. */
async function recoverOrProblem(recover: () => Promise<Address>): Promise<{ ok: true; address: Address } | { ok: false; message: string }> {
  try {
    return { ok: true, address: await recover() };
  } catch (error) {
    if (isBaseError(error)) return { ok: false, message: error.message };
    throw error;
  }
}

/**
 * The relay's validation and sponsoring.
 *
 * @example
 * const relay = new RelayExecutor({ clock, registry, isMarket, enqueue: (tx) => chain.enqueue(tx) }, settings);
 * const result = await relay.submit(wallet, call, null); // { status: 'BROADCAST', txHash, … }
 */
export class RelayExecutor {
  private readonly context: RelayExecutorContext;
  private readonly settings: RelaySettings;
  private nextSponsorNonce = 0n;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(context: RelayExecutorContext, settings: RelaySettings) {
    this.context = context;
    this.settings = settings;
  }

  /** The nonce the sponsor's next transaction will use. */
  get sponsorNonce(): bigint {
    return this.nextSponsorNonce;
  }

  /** Checks and, when valid, sponsors one relay call of `wallet`. Never rejects for bad input. */
  submit(wallet: Address, call: RelayCall, authorization7702: Authorization7702 | null): Promise<SubmitResult> {
    const result = this.queue.then(() => this.check(wallet.toLowerCase() as Address, call, authorization7702));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private nowSec(): bigint {
    return BigInt(Math.floor(this.context.clock.now() / 1000));
  }

  private async check(wallet: Address, call: RelayCall, authorization7702: Authorization7702 | null): Promise<SubmitResult> {
    const { chainId, tradingWalletDomainVersion: version } = this.settings;
    switch (call.method) {
      case RelayMethod.executeBatch: {
        const payload = call.payload;
        if (!this.context.isMarket(payload.header.market)) return rejected('UNKNOWN_MARKET', `no market at ${payload.header.market}`);
        const domain = tradingWalletDomain({ chainId, wallet, version });
        const problem = await this.checkIntent(wallet, payload.header, () => recoverBatchIntentSigner({ domain, intent: payload, signature: payload.signature }));
        if (problem !== null) return problem;
        return this.sponsorIntent(wallet, payload.header, {
          kind: 'batch',
          accountId: payload.header.accountId,
          market: payload.header.market,
          cancelSlotIdxs: payload.cancelSlotIdxs,
          expectedOrderIds: payload.expectedOrderIds,
          orders: payload.orders,
          guard: this.guard(wallet, payload.header),
        });
      }
      case RelayMethod.executeReplaceBySlotPacked: {
        const payload = call.payload;
        if (!this.context.isMarket(payload.header.market)) return rejected('UNKNOWN_MARKET', `no market at ${payload.header.market}`);
        const domain = tradingWalletDomain({ chainId, wallet, version });
        const problem = await this.checkIntent(wallet, payload.header, () =>
          recoverReplaceBySlotIntentSigner({ domain, intent: payload, signature: payload.signature }),
        );
        if (problem !== null) return problem;
        let ops: PackedOp[];
        try {
          ops = decodePackedOps(payload.packedOps);
        } catch (error) {
          if (isBaseError(error)) return rejected('INVALID_REQUEST', error.message);
          throw error;
        }
        return this.sponsorIntent(wallet, payload.header, {
          kind: 'replace',
          accountId: payload.header.accountId,
          market: payload.header.market,
          ops,
          expectedOrderIds: payload.expectedOrderIds,
          guard: this.guard(wallet, payload.header),
        });
      }
      case RelayMethod.cancelTrigger: {
        const payload = call.payload;
        const domain = tradingWalletDomain({ chainId, wallet, version });
        const problem = await this.checkIntent(wallet, payload, () =>
          recoverCancelTriggerIntentSigner({ domain, intent: payload, signature: payload.signature }),
        );
        if (problem !== null) return problem;
        return rejected('UNKNOWN_TRIGGER', `trigger ${payload.triggerId} is not active (creating triggers is not supported live)`);
      }
      case RelayMethod.authorizeAccountSigner:
        return this.checkAuthorize(wallet, call.payload, authorization7702);
    }
  }

  private guard(wallet: Address, header: IntentHeader): IntentGuard {
    return { wallet, authNonce: header.authNonce, deadline: header.deadline, delegate: this.settings.tradingWalletDelegate };
  }

  /** The checks every trading-wallet intent shares; null when they pass. */
  private async checkIntent(
    wallet: Address,
    intent: { readonly accountId: bigint; readonly authNonce: bigint; readonly nonce: bigint; readonly deadline: bigint },
    recover: () => Promise<Address>,
  ): Promise<Rejected | null> {
    const recovered = await recoverOrProblem(recover);
    if (!recovered.ok) return rejected('INVALID_SIGNATURE', recovered.message);
    if (recovered.address !== wallet) {
      return rejected('INVALID_SIGNATURE', `the signature recovers to ${recovered.address}, not to the wallet ${wallet}`);
    }
    const { registry, clock } = this.context;
    const nowSec = this.nowSec();
    const delegate = this.settings.tradingWalletDelegate;
    if (registry.delegation(wallet)?.delegate !== delegate) {
      return rejected('WALLET_NOT_DELEGATED', `wallet ${wallet} has no EIP-7702 delegation to ${delegate}`);
    }
    if (!registry.holds(intent.accountId, wallet, Permission.TRADE, nowSec)) {
      return rejected('SIGNER_NOT_AUTHORIZED', `wallet ${wallet} holds no unexpired TRADE grant on account ${intent.accountId}`);
    }
    const authNonce = registry.authNonce(intent.accountId);
    if (intent.authNonce !== authNonce) {
      return rejected('AUTH_NONCE_MISMATCH', `authNonce ${intent.authNonce} is not the account's current ${authNonce}`);
    }
    const last = registry.lastIntentNonce(wallet);
    if (intent.nonce <= last) return rejected('NONCE_NOT_INCREASING', `nonce ${intent.nonce} is not above the last nonce ${last}`);
    const latest = BigInt(Math.floor(clock.now())) + BigInt(this.settings.maxNonceSkewMs);
    if (intent.nonce > latest) {
      return rejected('NONCE_TOO_FAR_AHEAD', `nonce ${intent.nonce} is more than ${this.settings.maxNonceSkewMs} ms ahead of ${clock.now()}`);
    }
    if (intent.deadline < nowSec) return rejected('DEADLINE_EXPIRED', `deadline ${intent.deadline} is before ${nowSec}`);
    return null;
  }

  private sponsorIntent(wallet: Address, header: IntentHeader, tx: VenueTx): SubmitResult {
    this.context.registry.setLastIntentNonce(wallet, header.nonce);
    return this.sponsor(wallet, 'DYNAMIC_FEE', tx);
  }

  private async checkAuthorize(
    wallet: Address,
    payload: AuthorizeAccountSignerIntent & Signed,
    authorization7702: Authorization7702 | null,
  ): Promise<SubmitResult> {
    const { registry } = this.context;
    const { chainId, accountCore, tradingWalletDelegate } = this.settings;
    const domain = accountCoreDomain({ chainId, accountCore });
    const recovered = await recoverOrProblem(() => recoverAuthorizeAccountSignerSigner({ domain, intent: payload, signature: payload.signature }));
    if (!recovered.ok) return rejected('INVALID_SIGNATURE', recovered.message);
    if (recovered.address !== payload.authorizer) {
      return rejected('INVALID_SIGNATURE', `the signature recovers to ${recovered.address}, not to the authorizer ${payload.authorizer}`);
    }
    // Recover everything first, so that the state checks below run without an await between them.
    const authority = authorization7702 === null ? null : await recoverOrProblem(() => recoverAuthorization7702Authority(authorization7702));
    const nowSec = this.nowSec();
    const owner = payload.account;
    if (payload.authorizer !== owner) {
      const accountId = registry.resolveAccount(owner);
      const ownsIt = accountId !== undefined && registry.ownerOf(accountId) === owner;
      if (!ownsIt || !registry.holds(accountId, payload.authorizer, Permission.ADMIN, nowSec)) {
        return rejected('SIGNER_NOT_AUTHORIZED', `authorizer ${payload.authorizer} is not the owner ${owner} nor an ADMIN of its account`);
      }
    }
    if (registry.isAuthorizeNonceUsed(owner, payload.nonce)) {
      return rejected('NONCE_ALREADY_USED', `authorization nonce ${payload.nonce} of ${owner} was already used`);
    }
    if (payload.deadline < nowSec) return rejected('DEADLINE_EXPIRED', `deadline ${payload.deadline} is before ${nowSec}`);
    if (payload.expiry !== 0n && payload.expiry < nowSec) return rejected('INVALID_REQUEST', `expiry ${payload.expiry} is already past`);

    let delegate: Address | null = null;
    if (authorization7702 !== null && authority !== null) {
      if (!authority.ok) return rejected('INVALID_SIGNATURE', `authorization7702: ${authority.message}`);
      if (authority.address !== wallet) {
        return rejected('INVALID_SIGNATURE', `authorization7702 recovers to ${authority.address}, not to the wallet ${wallet}`);
      }
      if (authorization7702.chainId !== BigInt(chainId) && authorization7702.chainId !== 0n) {
        return rejected('INVALID_REQUEST', `authorization7702.chainId must be ${chainId} or 0, got ${authorization7702.chainId}`);
      }
      if (authorization7702.delegate !== tradingWalletDelegate) {
        return rejected('INVALID_REQUEST', `authorization7702.delegate must be the trading-wallet delegate ${tradingWalletDelegate}`);
      }
      const expected = registry.nonce7702(wallet);
      if (authorization7702.nonce !== expected) {
        return rejected('INVALID_REQUEST', `authorization7702.nonce must be the wallet's EIP-7702 nonce ${expected}, got ${authorization7702.nonce}`);
      }
      delegate = tradingWalletDelegate;
    }

    registry.useAuthorizeNonce(owner, payload.nonce);
    if (delegate !== null) registry.bumpNonce7702(wallet);
    return this.sponsor(
      accountCore,
      delegate === null ? 'DYNAMIC_FEE' : 'SET_CODE',
      { kind: 'authorize', owner, signer: payload.signer, permissions: Number(payload.permissions), expiry: payload.expiry, delegate },
    );
  }

  private sponsor(to: Address, type: TxType, tx: VenueTx): SubmitResult {
    const { chainId, sponsorAddress } = this.settings;
    const sponsorNonce = this.nextSponsorNonce++;
    const hash = sponsoredTxHash(chainId, sponsorAddress, sponsorNonce);
    this.context.enqueue({ hash, from: sponsorAddress, to, type, payload: { origin: 'relay', tx } });
    return { status: 'BROADCAST', txHash: hash, sponsorAddress, sponsorNonce, transactionType: type };
  }
}
