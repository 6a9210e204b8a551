/**
 * Does the trading wallet hold its EIP-7702 delegation and a TRADE grant on the account? The relay
 * offers no read for it, so this asks the relay's own checks: it submits a cancel of slot 0 whose
 * deadline passed long ago (1970), signed by the wallet. The relay checks, in order, the market,
 * the signature, the delegation (WALLET_NOT_DELEGATED), the grant (SIGNER_NOT_AUTHORIZED), the
 * authNonce epoch (AUTH_NONCE_MISMATCH), the nonce and the deadline: an answer past the grant check
 * means delegation and grant are in place, and the expired deadline makes sure nothing is sent.
 *
 * Should a relay broadcast it anyway, the transaction can do nothing: its deadline has passed and
 * it only cancels slot 0 if that slot is empty (expected order id "empty").
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import { RelayMethod } from '../protocol/constants.ts';
import { tradingWalletDomain } from '../protocol/eip712-types.ts';
import type { BatchIntent } from '../protocol/intent-types.ts';
import { signBatchIntent, type IntentSigner } from '../protocol/intent-signing.ts';
import { EXPECT_EMPTY_SLOT } from '../protocol/relay-payloads.ts';
import type { RelayRestRequest } from '../protocol/relay-request.ts';
import type { SubmitAnswer } from './relay-transport.ts';

export interface SignerProbeParameters {
  readonly signer: IntentSigner;
  readonly chainId: number;
  readonly domainVersion: string;
  readonly accountId: bigint;
  /** Any market of the venue (the relay checks the market first). */
  readonly market: Address;
  /** A fresh request id. */
  readonly requestId: string;
  /** An intent nonce (ms since the epoch): a refused probe consumes nothing. */
  readonly nonce: bigint;
  /** The authNonce epoch to sign under. Default 0. */
  readonly authNonce?: bigint;
}

export interface SignerProbe {
  /** Whether the wallet is delegated to the trading-wallet delegate; undefined when the answer does not tell. */
  readonly delegated: boolean | undefined;
  /** Whether the wallet holds an unexpired TRADE grant on the account. */
  readonly trade: boolean | undefined;
  /** False when the grant exists but under another authNonce epoch than the one signed. */
  readonly authNonceMatches: boolean | undefined;
  /** The relay's code (or the answer's status), for messages. */
  readonly code: string;
  readonly message: string;
}

const PAST_GRANT_CHECK = new Set(['NONCE_NOT_INCREASING', 'NONCE_TOO_FAR_AHEAD', 'DEADLINE_EXPIRED']);

/** Reads a probe's answer (see the module comment). */
export function interpretProbeAnswer(answer: SubmitAnswer): SignerProbe {
  if (answer.status === 'BROADCAST') {
    return { delegated: true, trade: true, authNonceMatches: true, code: 'BROADCAST', message: 'the relay broadcast the probe (it will revert: its deadline passed)' };
  }
  if (answer.status !== 'REJECTED') {
    const message = 'message' in answer ? answer.message : 'reason' in answer ? answer.reason : answer.status;
    return { delegated: undefined, trade: undefined, authNonceMatches: undefined, code: 'code' in answer ? String(answer.code) : answer.status, message };
  }
  const { code, message } = answer;
  if (code === 'WALLET_NOT_DELEGATED') return { delegated: false, trade: undefined, authNonceMatches: undefined, code, message };
  if (code === 'SIGNER_NOT_AUTHORIZED') return { delegated: true, trade: false, authNonceMatches: undefined, code, message };
  if (code === 'AUTH_NONCE_MISMATCH') return { delegated: true, trade: true, authNonceMatches: false, code, message };
  if (PAST_GRANT_CHECK.has(code)) return { delegated: true, trade: true, authNonceMatches: true, code, message };
  return { delegated: undefined, trade: undefined, authNonceMatches: undefined, code, message };
}

/** The signed probe request (a `wallet.execute_batch`). */
export async function signerProbeRequest(params: SignerProbeParameters): Promise<RelayRestRequest> {
  const wallet = params.signer.address.toLowerCase() as Address;
  const intent: BatchIntent = {
    header: {
      accountId: params.accountId,
      market: params.market.toLowerCase() as Address,
      authNonce: params.authNonce ?? 0n,
      nonce: params.nonce,
      deadline: 1n,
      clientOrderId: `0x${'00'.repeat(32)}` as Hex,
      builder: `0x${'00'.repeat(20)}` as Address,
      builderFeePps: 0n,
    },
    orders: [],
    cancelSlotIdxs: [0],
    expectedOrderIds: [EXPECT_EMPTY_SLOT],
  };
  const domain = tradingWalletDomain({ chainId: params.chainId, wallet, version: params.domainVersion });
  const signature = await signBatchIntent(params.signer, { domain, intent });
  return { requestId: params.requestId, method: RelayMethod.executeBatch, wallet, payload: { ...intent, signature }, authorization7702: null };
}

/**
 * Probes the wallet's delegation and TRADE grant through `submit` (a relay transport's).
 *
 * @example
 * const probe = await probeSignerGrant((request) => rest.submit(request), { signer, chainId, domainVersion: '1', accountId, market, requestId: ids.next(), nonce: BigInt(clock.now()) });
 * probe.trade // true when the wallet may trade for the account
 */
export async function probeSignerGrant(submit: (request: RelayRestRequest) => Promise<SubmitAnswer>, params: SignerProbeParameters): Promise<SignerProbe> {
  return interpretProbeAnswer(await submit(await signerProbeRequest(params)));
}
