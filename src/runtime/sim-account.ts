/**
 * What `clobbot account setup`, `clobbot run` and the testing kit share: the local venue's `/sim/info` and
 * `/sim/fund`, the sim config's funding in raw units, the market specs a venue publishes, and the
 * signer authorization (EIP-7702 delegation of the trading wallet + the owner's TRADE grant) sent
 * over the relay and followed to its terminal outcome.
 */
import { filter, firstValueFrom, take } from 'rxjs';
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { Decimal } from '../core/decimal.ts';
import { toUnits } from '../core/units.ts';
import type { ResolvedNetwork } from '../config/network-config.ts';
import type { SimConfig } from '../config/sim-config.ts';
import { Permission, RelayMethod } from '../protocol/constants.ts';
import { accountCoreDomain } from '../protocol/eip712-types.ts';
import { signAuthorization7702 } from '../protocol/eip7702.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { Authorization7702, AuthorizeAccountSignerIntent } from '../protocol/intent-types.ts';
import { signAuthorizeAccountSigner } from '../protocol/intent-signing.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { describeCall, parseBody } from '../clients/response-body.ts';
import { DEFAULT_RETRY_POLICY, NO_RETRY } from '../clients/retry-policy.ts';
import { sendRequest, type ClientContext } from '../clients/send-request.ts';
import type { TransportOutcome } from '../execution/relay-receipts.ts';
import type { RelayTransport, SubmitAnswer } from '../execution/relay-transport.ts';
import type { WalletSigner } from '../execution/signer-source.ts';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const digits = z.union([z.string().regex(/^[0-9]+$/), z.number().int().nonnegative()]).transform((value) => BigInt(value));
const lowerAddress = z
  .string()
  .regex(addressPattern)
  .transform((value) => value.toLowerCase() as Address);

const simTokenSchema = z.looseObject({ address: lowerAddress, symbol: z.string(), decimals: z.number().int() });
const simMarketSchema = z.looseObject({
  symbol: z.string(),
  address: lowerAddress,
  baseToken: simTokenSchema,
  quoteToken: simTokenSchema,
  pricePrecision: digits.optional(),
  sizePrecision: digits.optional(),
  tickSize: digits.optional(),
  minSize: digits.optional(),
  maxSize: digits.optional(),
  makerFeePps: digits.optional(),
  takerFeePps: digits.optional(),
});

/** `GET /sim/info`, as far as clobbot reads it. */
export const simInfoSchema = z.looseObject({
  chainId: z.number().int().positive(),
  blockMs: z.number().int().positive().optional(),
  contracts: z.looseObject({ accountCore: lowerAddress, tradingWalletDelegate: lowerAddress }),
  markets: z.array(simMarketSchema),
  tokens: z.array(simTokenSchema),
});
export type SimInfo = z.output<typeof simInfoSchema>;

/** `GET {venueUrl}/sim/info`. */
export async function getSimInfo(context: ClientContext, venueUrl: string): Promise<SimInfo> {
  const url = `${venueUrl}/sim/info`;
  const response = await sendRequest(context, {
    request: { method: 'GET', url, headers: { accept: 'application/json' } },
    idempotent: true,
    timeoutMs: 5_000,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2 },
  });
  return parseBody(response, { schema: simInfoSchema, where: describeCall('GET', url) });
}

/** `POST {venueUrl}/sim/fund`: credits `amount` raw units (0 only opens the account); returns the account id. */
export async function simFund(context: ClientContext, venueUrl: string, body: { owner: Address; token: string; amount: bigint }): Promise<bigint> {
  const url = `${venueUrl}/sim/fund`;
  const response = await sendRequest(context, {
    request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, amount: body.amount.toString() }) },
    idempotent: false,
    timeoutMs: 5_000,
    retry: NO_RETRY,
  });
  const parsed = parseBody(response, { schema: z.looseObject({ accountId: z.string().regex(/^[0-9]+$/) }), where: describeCall('POST', url) });
  return BigInt(parsed.accountId);
}

export interface FundingAmount {
  readonly symbol: string;
  /** As written in the sim config, normalised (`300000`). */
  readonly human: string;
  /** Raw token units (the venue's decimals). */
  readonly raw: bigint;
}

/** The sim config's `funding.default` in raw amounts per token symbol of the venue (tokens it does not list are skipped). */
export function fundingAmounts(sim: SimConfig, info: SimInfo): FundingAmount[] {
  const out: FundingAmount[] = [];
  for (const [symbol, human] of Object.entries(sim.funding.default)) {
    const token = info.tokens.find((candidate) => candidate.symbol === symbol);
    if (token === undefined) continue;
    const raw = toUnits(human, 10n ** BigInt(token.decimals), 'down');
    if (raw > 0n) out.push({ symbol, human: new Decimal(human).toFixed(), raw });
  }
  return out;
}

/** Credits `owner` with every amount (`POST /sim/fund` each); returns the account id (opened when needed). */
export async function fundOwner(context: ClientContext, venueUrl: string, owner: Address, amounts: readonly FundingAmount[], openWith: string): Promise<bigint> {
  let accountId = await simFund(context, venueUrl, { owner, token: amounts[0]?.symbol ?? openWith, amount: 0n });
  for (const amount of amounts) accountId = await simFund(context, venueUrl, { owner, token: amount.symbol, amount: amount.raw });
  return accountId;
}

/**
 * The full market parameters a venue's `/sim/info` publishes, for the run's symbols. Symbols the
 * venue does not list, or lists without every parameter, are returned in `missing`.
 */
export function marketSpecsOf(info: SimInfo, symbols: readonly string[]): { specs: MarketSpec[]; missing: string[] } {
  const specs: MarketSpec[] = [];
  const missing: string[] = [];
  for (const symbol of symbols) {
    const market = info.markets.find((candidate) => candidate.symbol === symbol);
    const { pricePrecision, sizePrecision, tickSize, minSize, maxSize, makerFeePps, takerFeePps } = market ?? {};
    if (
      market === undefined ||
      pricePrecision === undefined ||
      sizePrecision === undefined ||
      tickSize === undefined ||
      minSize === undefined ||
      maxSize === undefined ||
      makerFeePps === undefined ||
      takerFeePps === undefined
    ) {
      missing.push(symbol);
      continue;
    }
    const token = (spec: z.output<typeof simTokenSchema>) => ({ address: spec.address, symbol: spec.symbol, decimals: spec.decimals });
    specs.push(
      Object.freeze({
        symbol,
        address: market.address,
        baseToken: token(market.baseToken),
        quoteToken: token(market.quoteToken),
        pricePrecision,
        sizePrecision,
        tickSize,
        minSize,
        maxSize,
        makerFeePps,
        takerFeePps,
      }),
    );
  }
  return { specs, missing };
}

// ---- the signer authorization ---------------------------------------------------------------

/** Deadline of a signed grant, from now. */
export const GRANT_DEADLINE_SEC = 300n;

/** Signs the EIP-7702 authorization of the trading wallet to the network's trading-wallet delegate. */
export async function signDelegation(wallet: WalletSigner, params: { readonly network: ResolvedNetwork; readonly delegate: Address; readonly nonce: bigint }): Promise<Authorization7702> {
  const { signAuthorization } = wallet.account;
  if (signAuthorization === undefined) {
    throw new BaseError('CLI_USAGE', `the trading wallet's signer (${wallet.origin}) cannot sign EIP-7702 authorizations`, { details: { wallet: wallet.address } });
  }
  return signAuthorization7702({ address: wallet.account.address, signAuthorization }, { chainId: BigInt(params.network.chainId), delegate: params.delegate, nonce: params.nonce });
}

export interface TradeGrant {
  readonly intent: AuthorizeAccountSignerIntent;
  readonly signature: Hex;
}

/** The owner's `AuthorizeAccountSigner`: TRADE for the trading wallet on the owner's account, never expiring; nonce = `nowMs`. */
export async function signTradeGrant(
  owner: WalletSigner,
  params: { readonly wallet: Address; readonly network: ResolvedNetwork; readonly accountCore: Address; readonly nowMs: number },
): Promise<TradeGrant> {
  const intent: AuthorizeAccountSignerIntent = {
    account: owner.address,
    authorizer: owner.address,
    signer: params.wallet,
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    // One-shot per owner: the time in ms is new for every setup.
    nonce: BigInt(params.nowMs),
    deadline: BigInt(Math.floor(params.nowMs / 1000)) + GRANT_DEADLINE_SEC,
  };
  const signature = await signAuthorizeAccountSigner(owner.account, { domain: accountCoreDomain({ chainId: params.network.chainId, accountCore: params.accountCore }), intent });
  return { intent, signature };
}

export interface SubmittedGrant {
  readonly answer: SubmitAnswer;
  /** The terminal outcome, or undefined when the transport stopped first. Only awaited when `watched`. */
  readonly outcome: Promise<TransportOutcome | undefined>;
  /** True when the relay took the request (BROADCAST, or UNKNOWN with a candidate transaction). */
  readonly watched: boolean;
}

/** Submits `account_core.authorize_account_signer_by_sig` and follows its outcome on the transport. */
export async function submitSignerAuthorization(
  transport: RelayTransport,
  params: { readonly requestId: string; readonly wallet: Address; readonly grant: TradeGrant; readonly authorization7702: Authorization7702 | null },
): Promise<SubmittedGrant> {
  const outcome = firstValueFrom(
    transport.outcomes$.pipe(
      filter((candidate: TransportOutcome) => candidate.requestId === params.requestId),
      take(1),
    ),
    { defaultValue: undefined },
  );
  const answer = await transport.submit({
    requestId: params.requestId,
    method: RelayMethod.authorizeAccountSigner,
    wallet: params.wallet,
    payload: { ...params.grant.intent, signature: params.grant.signature },
    authorization7702: params.authorization7702,
  });
  const watched = answer.status === 'BROADCAST' || (answer.status === 'UNKNOWN' && answer.candidateTxHash !== null);
  return { answer, outcome, watched };
}

/** One line for an immediate relay answer. */
export function describeAnswer(answer: SubmitAnswer): string {
  switch (answer.status) {
    case 'BROADCAST':
      return `BROADCAST tx ${answer.txHash} (${answer.transactionType})`;
    case 'REJECTED':
    case 'UNKNOWN':
      return `${answer.status} ${answer.code}: ${answer.message}`;
    case 'NOT_SENT':
      return `not sent (${answer.code}): ${answer.reason}`;
    case 'TIMEOUT':
      return `no answer within ${answer.timeoutMs} ms`;
    case 'DISCONNECTED':
      return `disconnected (${answer.code} ${answer.reason})`;
  }
}
