/**
 * Readying a trading wallet on the local venue, and connecting to an in-process one: what
 * `clobbot run` (src/cli/run/connect-sim-venue.ts) and the testing kit (`checkStrategy`) share, so a
 * strategy under test meets its venue exactly as a run does.
 *
 * - `setUpSimWallet`: funds the wallet's own account from the sim config's `funding.default`
 *   (`POST /sim/fund`), signs the EIP-7702 delegation and the owner's TRADE grant, sends them through
 *   the relay and waits for the grant's CONFIRMED outcome (ACCOUNT_SETUP_FAILED otherwise).
 * - `connectInProcessVenue`: starts the venue in this process (src/runtime/in-process-venue.ts), reads
 *   its markets (`GET /sim/info`), sets the wallet up, and returns the VenueConnection a run needs.
 */
import { BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import type { IdSource } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import { requireHosts, resolveNetwork, type ResolvedNetwork } from '../config/network-config.ts';
import type { SimConfig } from '../config/sim-config.ts';
import type { VirtualConfig } from '../config/virtual-config.ts';
import type { Address } from '../protocol/encoding.ts';
import type { ClientContext } from '../clients/send-request.ts';
import { createRelaySession } from '../execution/relay-session.ts';
import { createRestRelayTransport, type RestRelayTransport } from '../execution/relay-transport.ts';
import type { WalletSigner } from '../execution/signer-source.ts';
import { createInProcessVenue, type InProcessVenue } from './in-process-venue.ts';
import type { PendingWork } from './pending-work.ts';
import {
  describeAnswer,
  fundingAmounts,
  fundOwner,
  getSimInfo,
  marketSpecsOf,
  signDelegation,
  signTradeGrant,
  submitSignerAuthorization,
  type SimInfo,
} from './sim-account.ts';
import type { VenueConnection } from './venue-connection.ts';

/** How long a setup waits for the grant's outcome. */
export const SETUP_DEADLINE_MS = 60_000;

/**
 * A REST relay transport for a setup (its own session), started; `stop` lets go of both.
 *
 * @example
 * const setup = await startSetupTransport(context, { network, wallet, logger });
 * try { await setUpSimWallet({ …, transport: setup.transport }); } finally { await setup.stop(); }
 */
export async function startSetupTransport(
  context: ClientContext,
  params: { readonly network: ResolvedNetwork; readonly wallet: WalletSigner; readonly logger: Logger },
): Promise<{ readonly transport: RestRelayTransport; stop(): Promise<void> }> {
  const { network, wallet, logger } = params;
  const session = createRelaySession({ ...context, logger }, { network: network.name, relayUrl: network.hosts.relayUrl!, signer: wallet.account, logger });
  const transport = createRestRelayTransport(
    { ...context, logger },
    { network: network.name, relayUrl: network.hosts.relayUrl!, rpcUrl: network.hosts.rpcUrl!, session, receiptPollMs: 100, receiptDeadlineMs: SETUP_DEADLINE_MS },
  );
  await transport.start();
  return {
    transport,
    async stop() {
      await transport.stop();
      session.stop();
    },
  };
}

export interface SetUpSimWalletParameters {
  readonly context: ClientContext;
  readonly venueUrl: string;
  readonly info: SimInfo;
  /** Its `funding.default` is credited. */
  readonly sim: SimConfig;
  /** Where the sim config came from, for the `funded` line. */
  readonly simFile: string;
  readonly network: ResolvedNetwork;
  /** The trading wallet; it owns its account. */
  readonly wallet: WalletSigner;
  readonly transport: RestRelayTransport;
  readonly ids: IdSource;
  readonly logger: Logger;
  /** The token an account is opened with when there is nothing to fund. Default the venue's first token. */
  readonly openWith?: string;
}

export interface SimWalletSetup {
  readonly accountId: bigint;
  /** `funded 300000 MON, 20000 USDC`, or why nothing was. */
  readonly funded: string;
  /** The block that confirmed the grant. */
  readonly blockNumber: bigint | null;
}

/**
 * Funds the wallet's own account and grants it TRADE (EIP-7702 delegation + `AuthorizeAccountSigner`),
 * waiting for the CONFIRMED outcome. Throws ACCOUNT_SETUP_FAILED when the relay does not take the
 * grant or it does not confirm.
 *
 * @example
 * const { accountId } = await setUpSimWallet({ context, venueUrl, info, sim, simFile, network, wallet, transport, ids, logger });
 */
export async function setUpSimWallet(params: SetUpSimWalletParameters): Promise<SimWalletSetup> {
  const { context, venueUrl, info, sim, network, wallet, logger } = params;
  const owner: Address = wallet.address;
  const openWith = params.openWith ?? info.tokens[0]?.symbol ?? info.markets[0]!.quoteToken.symbol;
  const amounts = fundingAmounts(sim, info);
  const accountId = await fundOwner(context, venueUrl, owner, amounts, openWith);
  const funded = amounts.length === 0 ? `nothing to fund (funding.default of ${params.simFile} is empty)` : `funded ${amounts.map((amount) => `${amount.human} ${amount.symbol}`).join(', ')}`;
  // The sim's EIP-7702 nonces start at 0 and are used only by setups.
  const authorization7702 = await signDelegation(wallet, { network, delegate: info.contracts.tradingWalletDelegate, nonce: 0n });
  const grant = await signTradeGrant(wallet, { wallet: wallet.address, network, accountCore: info.contracts.accountCore, nowMs: context.clock.now() });
  const requestId = params.ids.next();
  const { answer, outcome, watched } = await submitSignerAuthorization(params.transport, { requestId, wallet: wallet.address, grant, authorization7702 });
  if (!watched) {
    throw new BaseError('ACCOUNT_SETUP_FAILED', `the relay did not take the signer authorization: ${describeAnswer(answer)}`, {
      details: { status: answer.status, ...('code' in answer ? { code: answer.code } : {}) },
    });
  }
  const result = await outcome;
  if (result === undefined || result.status !== 'CONFIRMED') {
    const why = result === undefined ? 'the receipt watch stopped' : `${result.status}${result.reason === null ? '' : `: ${result.reason}`}`;
    throw new BaseError('ACCOUNT_SETUP_FAILED', `the signer authorization did not confirm: ${why}`, { details: { requestId, status: result?.status ?? 'NONE' } });
  }
  logger.info({ accountId: String(accountId), block: String(result.blockNumber), txHash: result.txHash }, 'trading wallet set up: delegated, TRADE granted');
  return { accountId, funded, blockNumber: result.blockNumber };
}

export interface ConnectInProcessVenueParameters {
  readonly sim: SimConfig;
  /** For the `funded` line. Default `the sim config`. */
  readonly simFile?: string;
  readonly clock: Clock;
  readonly wallet: WalletSigner;
  /** The run's markets, by symbol. Default every market of the venue. */
  readonly symbols?: readonly string[];
  readonly latency: VirtualConfig['latency'];
  /** The venue's faults, its secrets, the connection's delays, the clients' jitter. */
  readonly random: RandomSource;
  readonly secrets: RandomSource;
  readonly latencyRandom: RandomSource;
  readonly clientRandom: RandomSource;
  readonly pending: PendingWork;
  /** Runs the sim config's background flow. Default true. */
  readonly backgroundFlow?: boolean;
  /** Mixed into every market's flow seed. */
  readonly seed?: number;
  readonly ids: IdSource;
  readonly logger: Logger;
}

/**
 * Starts the venue in this process and readies the wallet on it. Throws CONFIG_INVALID for a symbol
 * the venue does not list, ACCOUNT_SETUP_FAILED when the setup does not confirm.
 *
 * @example
 * const { venue, connection } = await connectInProcessVenue({ sim, clock, wallet, latency, random, secrets, latencyRandom, clientRandom, pending, ids, logger });
 * const runtime = createTradingRuntime({ venue: connection, clock, … });
 */
export async function connectInProcessVenue(params: ConnectInProcessVenueParameters): Promise<{ readonly venue: InProcessVenue; readonly connection: VenueConnection }> {
  const { clock, wallet, logger } = params;
  const venue = createInProcessVenue({
    config: params.sim,
    clock,
    random: params.random,
    secrets: params.secrets,
    latencyRandom: params.latencyRandom,
    latency: params.latency,
    logger: logger.child({ component: 'sim' }, { level: 'warn' }),
    pending: params.pending,
    backgroundFlow: params.backgroundFlow ?? true,
    ...(params.seed === undefined ? {} : { seed: params.seed }),
  });
  venue.start();
  const stop = async () => venue.stop();
  try {
    const context: ClientContext = { transport: venue.transport, clock, random: params.clientRandom };
    const info = await getSimInfo(context, venue.url);
    const network = resolveNetwork('sim', { venueUrl: venue.url, chainId: info.chainId });
    requireHosts(network);
    const symbols = params.symbols ?? info.markets.map((market) => market.symbol);
    const { specs, missing } = marketSpecsOf(info, symbols);
    if (missing.length > 0) {
      throw new BaseError('CONFIG_INVALID', `${missing.join(', ')} ${missing.length === 1 ? 'is not a market' : 'are not markets'} of the venue (it lists ${info.markets.map((m) => m.symbol).join(', ')})`, {
        details: { missing },
      });
    }
    const setup = await startSetupTransport(context, { network, wallet, logger });
    let done: SimWalletSetup;
    try {
      done = await setUpSimWallet({ context, venueUrl: venue.url, info, sim: params.sim, simFile: params.simFile ?? 'the sim config', network, wallet, transport: setup.transport, ids: params.ids, logger });
    } finally {
      await setup.stop();
    }
    const connection: VenueConnection = {
      network,
      where: 'in-process venue, no network',
      blockMs: info.blockMs,
      specs,
      accountId: done.accountId,
      owner: wallet.address,
      authNonce: 0n,
      accountCore: info.contracts.accountCore,
      setup: `${done.funded}; delegated and granted TRADE (CONFIRMED in block ${done.blockNumber})`,
      transport: venue.transport,
      createSocket: venue.createSocket,
      stop,
    };
    return { venue, connection };
  } catch (error) {
    await stop();
    throw error;
  }
}
