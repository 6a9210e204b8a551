/**
 * The venue of a run on a live network (testnet, mainnet). Nothing there is funded or set up by the
 * run: the markets come whole from the run file, the account is `account.id`, and the wallet must
 * already be able to trade (`clobbot account setup`). Before trading, the run checks what it can:
 *
 * - the JSON-RPC endpoint serves the network's chain (`eth_chainId`): signatures are bound to it;
 * - each market against the exchange host's `GET /api/v3/exchangeInfo`, when it lists the symbol
 *   (base and quote assets, and Binance's tick and lot filters when present);
 * - the relay, with the probe of `relay-signer-probe.ts` per market, signed under `account.authNonce`:
 *   a market address it does not know is a located error; a wallet not delegated, without TRADE, or
 *   under another authNonce epoch is RUN_ACCOUNT_NOT_READY with what to run or fix.
 *
 * Mismatches between the run file and the network are input mistakes, located in the file
 * (CONFIG_INVALID, exit 2); a refusal of the account is RUN_ACCOUNT_NOT_READY (exit 1).
 */
import { BaseError } from '../../core/base-error.ts';
import type { IdSource } from '../../core/ids.ts';
import type { Logger } from '../../core/logger.ts';
import { scrubKnownSecrets } from '../../core/secrets.ts';
import { configError } from '../../config/load-config.ts';
import type { NetworkName } from '../../config/network-config.ts';
import { resolveRunNetwork, runAuthNonce, type RunConfig } from '../../config/run-config.ts';
import { locatedIssue, type YamlSource } from '../../config/yaml-source.ts';
import type { ExchangeInfo } from '../../protocol/market-data.ts';
import { createMarketSpec, type MarketSpec } from '../../protocol/market-spec.ts';
import { createMarketDataClient } from '../../clients/market-data-client.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { createRpcPublicClient } from '../../clients/rpc-public-client.ts';
import { createRelaySession } from '../../execution/relay-session.ts';
import { createRestRelayTransport } from '../../execution/relay-transport.ts';
import type { WalletSigner } from '../../execution/signer-source.ts';
import { exchangeInfoMismatches } from './exchange-info-check.ts';
import { notReadyError, probeTradingWallet } from './trading-wallet-readiness.ts';
import type { VenueConnection } from '../../runtime/venue-connection.ts';

export interface ConnectNetworkVenueParameters {
  /** A run file whose every market is given whole and that names `account.id` (`runFileIssues` checked it). */
  readonly config: RunConfig;
  readonly source: YamlSource;
  /** The network traded (the file's, or `--network`). */
  readonly network: Exclude<NetworkName, 'sim'>;
  readonly wallet: WalletSigner;
  readonly context: ClientContext;
  readonly ids: IdSource;
  readonly logger: Logger;
}

/** How long one check may wait for its answer. */
const CHECK_TIMEOUT_MS = 10_000;

/** Checks the network, the markets and the account, then hands the run its venue. */
export async function connectNetworkVenue(params: ConnectNetworkVenueParameters): Promise<VenueConnection> {
  const { config, source, wallet, context, logger } = params;
  const network = resolveRunNetwork(config, { network: params.network });
  const hosts = network.hosts;
  const scrub = (text: string) => scrubKnownSecrets(text, source.secrets);

  const specs: MarketSpec[] = config.markets.map((entry, index) => {
    if (typeof entry === 'string') {
      throw configError(source.file, [locatedIssue(source, ['markets', index], `on ${network.name} a market is given whole, not by symbol`)]);
    }
    return createMarketSpec(entry);
  });
  const accountId = config.account.id;
  if (accountId === undefined) throw configError(source.file, [locatedIssue(source, ['account', 'id'], `required on ${network.name}`)]);
  const owner = config.account.owner ?? wallet.address;
  const authNonce = runAuthNonce(config);

  // The chain: intents are signed for network.chainId, receipts are read from this endpoint.
  let chainId: number;
  try {
    chainId = await createRpcPublicClient(context, { rpcUrl: hosts.rpcUrl!, timeoutMs: CHECK_TIMEOUT_MS }).getChainId();
  } catch (error) {
    throw new BaseError('HTTP_UNAVAILABLE', `the JSON-RPC endpoint of ${network.name} (hosts.rpcUrl in ${source.file}) did not answer eth_chainId`, { cause: error });
  }
  if (chainId !== network.chainId) {
    throw configError(source.file, [
      locatedIssue(source, ['hosts', 'rpcUrl'], `serves chain ${chainId}, but ${network.name} is chain ${network.chainId}: point it at a ${network.name} endpoint`),
    ]);
  }

  // The markets, as far as the exchange host describes them.
  let info: ExchangeInfo | undefined;
  try {
    info = await createMarketDataClient(context, { baseUrl: hosts.exchangeUrl! }).exchangeInfo({ timeoutMs: CHECK_TIMEOUT_MS });
  } catch (error) {
    logger.warn({ err: error }, 'could not read the exchange info: the markets are taken from the run file unchecked');
  }
  if (info !== undefined) {
    const mismatches = exchangeInfoMismatches(info, specs);
    if (mismatches.length > 0) {
      throw configError(
        source.file,
        mismatches.map((mismatch) => locatedIssue(source, ['markets', mismatch.index, ...mismatch.field], mismatch.message)),
      );
    }
    for (const spec of specs) {
      const listed = info.symbols.find((symbol) => symbol.symbol === spec.symbol);
      if (listed === undefined) logger.warn({ market: spec.symbol }, 'the exchange host does not list this market: its parameters are taken from the run file unchecked');
      else if (listed.status !== 'TRADING') logger.warn({ market: spec.symbol, status: listed.status }, 'the exchange host says this market is not trading');
    }
  }

  // The relay: each market known, the wallet delegated and granted TRADE under the run's epoch.
  const session = createRelaySession({ ...context, logger }, { network: network.name, relayUrl: hosts.relayUrl!, signer: wallet.account, logger });
  const transport = createRestRelayTransport({ ...context, logger }, { network: network.name, relayUrl: hosts.relayUrl!, rpcUrl: hosts.rpcUrl!, session });
  await transport.start();
  try {
    const probes = [];
    for (const spec of specs) {
      probes.push(await probeTradingWallet({ transport, wallet, network, accountId, market: spec.address, authNonce, ids: params.ids, clock: context.clock }));
    }
    const unknown = probes.flatMap((probe, index) =>
      probe.code === 'UNKNOWN_MARKET' ? [locatedIssue(source, ['markets', index, 'address'], `the relay of ${network.name} knows no market at this address (UNKNOWN_MARKET)`)] : [],
    );
    if (unknown.length > 0) throw configError(source.file, unknown);
    const notReady = notReadyError(probes[0]!, { wallet: wallet.address, owner, accountId, authNonce, network, runFile: source.file });
    if (notReady !== undefined) throw notReady;
  } finally {
    await transport.stop();
    session.stop();
  }

  return {
    network,
    where: scrub(`relay ${hosts.relayUrl!}`),
    blockMs: undefined,
    specs,
    accountId,
    owner,
    authNonce,
    accountCore: config.account.accountCore,
    setup: `ready: delegated, TRADE on account ${accountId} under authNonce ${authNonce} (checked with the relay; nothing funded or set up by the run)`,
    transport: params.context.transport,
    stop: async () => undefined,
  };
}
