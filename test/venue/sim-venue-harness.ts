/**
 * A simulated venue on a virtual clock with real keys, and helpers that sign relay calls through
 * the project's own signing functions, for the venue tests.
 */
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { simConfigSchema, type SimConfig } from '../../src/config/sim-config.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { UINT64_MAX } from '../../src/core/units.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain, tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner, signBatchIntent, signCancelTriggerIntent, signReplaceBySlotIntent } from '../../src/protocol/intent-signing.ts';
import type { Authorization7702, IntentHeader, OrderIntent } from '../../src/protocol/intent-types.ts';
import { encodePackedOps, type PackedOp } from '../../src/protocol/packed-ops.ts';
import type { RelayCall } from '../../src/protocol/relay-request.ts';
import { createSimVenue } from '../../src/venue/create-sim-venue.ts';
import type { SimVenueModel, SubmitResult, TxOutcome } from '../../src/venue/sim-venue.ts';

/** Monday 2025-01-06 00:00:00 UTC. */
export const START_MS = Date.UTC(2025, 0, 6);
export const EMPTY_SLOT = UINT64_MAX;

// Public test keys (anvil accounts 0..4).
export const KEYS = {
  alice: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  aliceWallet: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  bob: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  bobWallet: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  mallory: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
} as const;

export const MON = '0x06bce055fcf8026862983918c037cfbe87879d73' as Address;
export const USDC = '0xcdffab23a32a262c0bcd6f78e777a1947367a4cf' as Address;
export const WETH = '0xac3b5326116bebabc7d838c92e3e28f4a3a05a69' as Address;
export const MON_USDC = '0xe7908d59f465e1dfe3bf575f93fdd54226797bfe' as Address;
export const WETH_USDC = '0xa2531d69a127ab8f9da32e9d6be6b6c7e643f026' as Address;
export const ZERO_ADDRESS = `0x${'0'.repeat(40)}` as Address;

/**
 * MON_USDC: prices in 0.01 USDC, sizes in 0.001 MON, no fees; WETH_USDC: cents and 0.0001 WETH.
 * Blocks every 400 ms; voted 1, finalized 2, committed 3 blocks later.
 */
export function testConfig(overrides: Record<string, unknown> = {}): SimConfig {
  return simConfigSchema.parse({
    tokens: [
      { symbol: 'MON', name: 'Monad', address: MON, decimals: 18 },
      { symbol: 'USDC', name: 'USD Coin', address: USDC, decimals: 6 },
      { symbol: 'WETH', address: WETH, decimals: 18 },
    ],
    markets: [
      {
        symbol: 'MON_USDC',
        address: MON_USDC,
        base: 'MON',
        quote: 'USDC',
        pricePrecision: 100,
        sizePrecision: 1000,
        tickSize: 1,
        minSize: 1,
        maxSize: 1_000_000_000,
        makerFeePps: 0,
        takerFeePps: 0,
      },
      {
        symbol: 'WETH_USDC',
        address: WETH_USDC,
        base: 'WETH',
        quote: 'USDC',
        pricePrecision: 100,
        sizePrecision: 10000,
        tickSize: 1,
        minSize: 1,
        maxSize: 10_000_000,
        makerFeePps: 0,
        takerFeePps: 2000,
      },
    ],
    ...overrides,
  });
}

export interface Trader {
  readonly owner: PrivateKeyAccount;
  readonly wallet: PrivateKeyAccount;
  readonly ownerAddress: Address;
  readonly walletAddress: Address;
  accountId: bigint;
}

function lower(account: PrivateKeyAccount): Address {
  return account.address.toLowerCase() as Address;
}

export interface Harness {
  readonly clock: VirtualClock;
  readonly venue: SimVenueModel;
  readonly config: SimConfig;
  readonly outcomes: TxOutcome[];
  /** Advances the clock by `n` block intervals (so exactly `n` blocks while started). */
  blocks(n?: number): void;
  trader(ownerKey: Hex, walletKey: Hex): Trader;
}

export function createHarness(config: SimConfig = testConfig()): Harness {
  const clock = new VirtualClock(START_MS);
  const venue = createSimVenue({ config, clock });
  const outcomes: TxOutcome[] = [];
  venue.outcomes$.subscribe((outcome) => outcomes.push(outcome));
  venue.start();
  return {
    clock,
    venue,
    config,
    outcomes,
    blocks: (n = 1) => clock.advanceBy(n * config.blockMs),
    trader: (ownerKey, walletKey) => {
      const owner = privateKeyToAccount(ownerKey);
      const wallet = privateKeyToAccount(walletKey);
      return { owner, wallet, ownerAddress: lower(owner), walletAddress: lower(wallet), accountId: 0n };
    },
  };
}

export interface AuthorizeOptions {
  readonly with7702?: boolean;
  readonly nonce?: bigint;
  readonly permissions?: bigint;
  readonly expiry?: bigint;
  readonly deadline?: bigint;
  /** Who signs the grant (default: the owner). */
  readonly signer?: PrivateKeyAccount;
  readonly authorizer?: Address;
  readonly nonce7702?: bigint;
  readonly delegate?: Address;
  readonly chainId7702?: bigint;
  /** Who signs the 7702 authorization (default: the wallet). */
  readonly authority?: PrivateKeyAccount;
}

/** The signed `authorize_account_signer_by_sig` call granting `trader.wallet` on the owner's account. */
export async function authorizeCall(
  h: Harness,
  trader: Trader,
  options: AuthorizeOptions = {},
): Promise<{ call: RelayCall; authorization7702: Authorization7702 | null }> {
  const { config, clock } = h;
  const intent = {
    account: trader.ownerAddress,
    authorizer: options.authorizer ?? trader.ownerAddress,
    signer: trader.walletAddress,
    permissions: options.permissions ?? 1n,
    expiry: options.expiry ?? 0n,
    nonce: options.nonce ?? 1n,
    deadline: options.deadline ?? BigInt(Math.floor(clock.now() / 1000) + 60),
  };
  const domain = accountCoreDomain({ chainId: config.chainId, accountCore: config.contracts.accountCore });
  const signature = await signAuthorizeAccountSigner(options.signer ?? trader.owner, { domain, intent });
  const authorization7702 =
    options.with7702 === false
      ? null
      : await signAuthorization7702(options.authority ?? trader.wallet, {
          chainId: options.chainId7702 ?? BigInt(config.chainId),
          delegate: options.delegate ?? config.contracts.tradingWalletDelegate,
          nonce: options.nonce7702 ?? 0n,
        });
  return { call: { method: RelayMethod.authorizeAccountSigner, payload: { ...intent, signature } }, authorization7702 };
}

/** Funds the owner, authorizes its wallet with a 7702 delegation, and mines the block. */
export async function onboard(h: Harness, trader: Trader, funds: { mon?: bigint; usdc?: bigint } = {}): Promise<void> {
  trader.accountId = h.venue.fund(trader.ownerAddress, MON, funds.mon ?? 1_000n * 10n ** 18n);
  h.venue.fund(trader.ownerAddress, USDC, funds.usdc ?? 1_000_000n * 10n ** 6n);
  const { call, authorization7702 } = await authorizeCall(h, trader);
  const result = await h.venue.submit(trader.walletAddress, call, authorization7702);
  if (result.status !== 'BROADCAST') throw new Error(`authorize refused: ${result.code} ${result.message}`);
  h.blocks(1);
}

export interface IntentOptions {
  readonly accountId?: bigint;
  readonly market?: Address;
  readonly authNonce?: bigint;
  readonly nonce?: bigint;
  readonly deadline?: bigint;
  /** Who signs (default: the trader's wallet). */
  readonly signer?: PrivateKeyAccount;
}

let lastNonce = 0n;

/** A nonce above every earlier one of this process, near the clock's ms. */
export function freshNonce(h: Harness): bigint {
  const now = BigInt(h.clock.now());
  lastNonce = lastNonce >= now ? lastNonce + 1n : now;
  return lastNonce;
}

function header(h: Harness, trader: Trader, options: IntentOptions): IntentHeader {
  return {
    accountId: options.accountId ?? trader.accountId,
    market: options.market ?? MON_USDC,
    authNonce: options.authNonce ?? 0n,
    nonce: options.nonce ?? freshNonce(h),
    deadline: options.deadline ?? BigInt(Math.floor(h.clock.now() / 1000) + 30),
    clientOrderId: `0x${'00'.repeat(31)}01`,
    builder: ZERO_ADDRESS,
    builderFeePps: 0n,
  };
}

export function order(side: 'BUY' | 'SELL', price: bigint, quantity: bigint, extra: Partial<OrderIntent> = {}): OrderIntent {
  return { side, price, quantity, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n, ...extra };
}

/** A signed `wallet.execute_batch`. */
export async function batchCall(
  h: Harness,
  trader: Trader,
  body: { orders?: OrderIntent[]; cancelSlotIdxs?: number[]; expectedOrderIds?: bigint[] },
  options: IntentOptions = {},
): Promise<RelayCall> {
  const intent = {
    header: header(h, trader, options),
    orders: body.orders ?? [],
    cancelSlotIdxs: body.cancelSlotIdxs ?? [],
    expectedOrderIds: body.expectedOrderIds ?? [],
  };
  const domain = tradingWalletDomain({ chainId: h.config.chainId, wallet: trader.walletAddress });
  const signature = await signBatchIntent(options.signer ?? trader.wallet, { domain, intent });
  return { method: RelayMethod.executeBatch, payload: { ...intent, signature } };
}

/** A signed `wallet.execute_replace_by_slot_packed` (raw packed hex, so tests can corrupt it). */
export async function replaceCall(
  h: Harness,
  trader: Trader,
  body: { ops?: PackedOp[]; packedOps?: Hex; expectedOrderIds: bigint[] },
  options: IntentOptions = {},
): Promise<RelayCall> {
  const intent = {
    header: header(h, trader, options),
    packedOps: body.packedOps ?? encodePackedOps(body.ops ?? []),
    expectedOrderIds: body.expectedOrderIds,
  };
  const domain = tradingWalletDomain({ chainId: h.config.chainId, wallet: trader.walletAddress });
  const signature = await signReplaceBySlotIntent(options.signer ?? trader.wallet, { domain, intent });
  return { method: RelayMethod.executeReplaceBySlotPacked, payload: { ...intent, signature } };
}

/** A signed `wallet.cancel_trigger`. */
export async function cancelTriggerCall(h: Harness, trader: Trader, options: IntentOptions = {}): Promise<RelayCall> {
  const intent = {
    accountId: options.accountId ?? trader.accountId,
    authNonce: options.authNonce ?? 0n,
    nonce: options.nonce ?? freshNonce(h),
    deadline: options.deadline ?? BigInt(Math.floor(h.clock.now() / 1000) + 30),
    triggerId: `0x${'00'.repeat(31)}07` as Hex,
  };
  const domain = tradingWalletDomain({ chainId: h.config.chainId, wallet: trader.walletAddress });
  const signature = await signCancelTriggerIntent(options.signer ?? trader.wallet, { domain, intent });
  return { method: RelayMethod.cancelTrigger, payload: { ...intent, signature } };
}

/** Submits a call of the trader's wallet. */
export function submit(h: Harness, trader: Trader, call: RelayCall, authorization7702: Authorization7702 | null = null): Promise<SubmitResult> {
  return h.venue.submit(trader.walletAddress, call, authorization7702);
}

/** Submits and expects BROADCAST; returns the tx hash. */
export async function broadcast(h: Harness, trader: Trader, call: RelayCall): Promise<Hex> {
  const result = await submit(h, trader, call);
  if (result.status !== 'BROADCAST') throw new Error(`expected BROADCAST, got ${result.code}: ${result.message}`);
  return result.txHash;
}
