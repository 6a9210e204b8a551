/**
 * The venue of a run on network `sim`: the local venue started in-process (no `venueUrl`), or a
 * running `clobbot sim` at `venueUrl`. Reads its markets and contracts (`GET /sim/info`), finds
 * the account, and makes sure the trading wallet can trade for it:
 *
 * - in-process: the wallet owns its account; it is funded from the sim config's `funding.default`
 *   (`POST /sim/fund`) and set up (EIP-7702 delegation + TRADE grant, as `clobbot account setup`),
 *   and the run waits for the grant's CONFIRMED outcome (`setUpSimWallet`, in
 *   src/runtime/connect-in-process-venue.ts: the testing kit readies its wallet the same way);
 * - a running venue: the relay is asked whether the wallet is delegated and holds TRADE (the probe
 *   of `clobbot account setup`); when not and the wallet owns its account, the run funds and sets
 *   it up the same way; when another address owns it, `clobbot account setup` must be run first.
 *
 * Markets are symbols the venue resolves, or markets given whole that must match the venue's own
 * field by field (a file written for another venue is refused, located, rather than traded with
 * parameters the venue does not hold). After a setup, the relay is asked once more, under the run's
 * authNonce, whether the wallet can now trade.
 */
import { BaseError } from '../../core/base-error.ts';
import { scrubKnownSecrets } from '../../core/secrets.ts';
import type { IdSource } from '../../core/ids.ts';
import type { Logger } from '../../core/logger.ts';
import type { RandomSource } from '../../core/random.ts';
import { configError, loadConfigOrThrow } from '../../config/load-config.ts';
import type { ConfigIssue } from '../../config/config-issue.ts';
import { resolveRunNetwork, runAuthNonce, runMarketSymbol, type RunConfig, type RunMarketSpec } from '../../config/run-config.ts';
import { simConfigSchema, type SimConfig } from '../../config/sim-config.ts';
import { locatedIssue, type YamlSource } from '../../config/yaml-source.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import { isClientError } from '../../clients/client-error.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import type { WalletSigner } from '../../execution/signer-source.ts';
import type { VirtualConfig } from '../../config/virtual-config.ts';
import type { FaultScriptInput } from '../../config/fault-config.ts';
import { createInProcessVenue, type InProcessVenue } from '../../runtime/in-process-venue.ts';
import type { PendingWork } from '../../runtime/pending-work.ts';
import { createSimServer, type SimServer } from '../../sim/sim-server.ts';
import { cryptoRandom, type SimReplay } from '../../sim/sim-service.ts';
import { getSimInfo, marketSpecsOf, simFund, type SimInfo } from '../../runtime/sim-account.ts';
import { setUpSimWallet, startSetupTransport } from '../../runtime/connect-in-process-venue.ts';
import { notReadyError, probeTradingWallet } from './trading-wallet-readiness.ts';
import type { VenueConnection } from '../../runtime/venue-connection.ts';
import { DEFAULT_SIM_CONFIG } from './default-sim-config.ts';

export interface ConnectSimVenueParameters {
  readonly config: RunConfig;
  readonly source: YamlSource;
  readonly wallet: WalletSigner;
  readonly env: Record<string, string | undefined>;
  readonly context: ClientContext;
  readonly ids: IdSource;
  readonly logger: Logger;
  /** Seed of the in-process venue's faults. */
  readonly random: RandomSource;
  /** The sim config, already read (a virtual run reads every file before its clock starts). Default: read from `simConfig`. */
  readonly simConfig?: SimConfig;
  /**
   * Runs the venue in this process without a network, reached through the in-process connection
   * (virtual runs): the connection's latencies and the seeded sources of its delays and the venue's
   * secrets. Default: on loopback, over HTTP and WebSocket.
   */
  readonly inProcess?: {
    readonly latency: VirtualConfig['latency'];
    readonly secrets: RandomSource;
    readonly latencyRandom: RandomSource;
    readonly pending: PendingWork;
    /** The run's seed, mixed into every market's background flow seed. */
    readonly seed: number;
    /** The run file's `virtual.faults`, counted from the venue's start (the virtual clock's start). */
    readonly faults: FaultScriptInput;
    /** Runs the sim config's background flow (default true; a backtest's flow is its recording). */
    readonly backgroundFlow?: boolean;
    /** A backtest's replayed market in place of the venue's own. */
    readonly replay?: SimReplay;
  };
}

/** The fields of a market given whole in which it differs from the venue's, each located in the run file. */
function marketMismatches(source: YamlSource, index: number, given: RunMarketSpec, venue: MarketSpec, where: string): ConfigIssue[] {
  const pairs: [string[], unknown, unknown][] = [
    [['address'], given.address, venue.address],
    ...(['baseToken', 'quoteToken'] as const).flatMap((side) =>
      (['address', 'symbol', 'decimals'] as const).map((field): [string[], unknown, unknown] => [[side, field], given[side][field], venue[side][field]]),
    ),
    ...(['pricePrecision', 'sizePrecision', 'tickSize', 'minSize', 'maxSize', 'makerFeePps', 'takerFeePps'] as const).map((field): [string[], unknown, unknown] => [
      [field],
      given[field],
      venue[field],
    ]),
  ];
  return pairs
    .filter(([, mine, theirs]) => mine !== theirs)
    .map(([field, , theirs]) => locatedIssue(source, ['markets', index, ...field], `differs from the venue's ${venue.symbol} (${where} has ${String(theirs)}): on sim a market given whole must match the venue, or list it by symbol`));
}

/** Starts (or reaches) the sim venue and readies the account. */
export async function connectSimVenue(params: ConnectSimVenueParameters): Promise<VenueConnection> {
  const { config, source, wallet, logger } = params;
  let { context } = params;
  const owner = config.account.owner ?? wallet.address;
  let server: SimServer | undefined;
  let inProcess: InProcessVenue | undefined;
  let venueUrl: string;
  const simFile = config.simConfig ?? DEFAULT_SIM_CONFIG;
  const sim = config.venueUrl === undefined || owner === wallet.address ? (params.simConfig ?? (await loadConfigOrThrow(simFile, simConfigSchema, { env: params.env }))) : undefined;

  if (config.venueUrl === undefined) {
    if (owner !== wallet.address) {
      throw configError(source.file, [
        locatedIssue(source, ['account', 'owner'], 'on an in-process venue the trading wallet owns its account: leave account.owner out (or set venueUrl to a running clobbot sim)'),
      ]);
    }
    const venueLogger = logger.child({ component: 'sim' }, { level: 'warn' });
    if (params.inProcess !== undefined) {
      inProcess = createInProcessVenue({ ...params.inProcess, config: sim!, clock: context.clock, random: params.random, logger: venueLogger });
      inProcess.start();
      venueUrl = inProcess.url;
      context = { ...context, transport: inProcess.transport };
      logger.info({ config: simFile }, 'in-process venue started (no network)');
    } else {
      server = createSimServer({ config: sim!, clock: context.clock, random: params.random, secrets: cryptoRandom(), logger: venueLogger, backgroundFlow: true });
      const address = await server.start({ port: 0 });
      venueUrl = address.url.replace(/\/+$/, '');
      logger.info({ url: venueUrl, config: simFile }, 'in-process venue listening');
    }
  } else {
    venueUrl = config.venueUrl;
  }
  /** The venue runs in this process (on loopback or in-process), rather than at `venueUrl`. */
  const ours = config.venueUrl === undefined;
  // A venueUrl from the environment (`${SIM_URL}`) may carry a credential: messages say it scrubbed.
  const shownUrl = scrubKnownSecrets(venueUrl, source.secrets);
  const stop = async () => {
    await server?.stop();
    inProcess?.stop();
  };

  try {
    let info: SimInfo;
    try {
      info = await getSimInfo(context, venueUrl);
    } catch (error) {
      if (!ours && (isClientError(error, 'HTTP_UNAVAILABLE') || isClientError(error, 'HTTP_TIMEOUT'))) {
        throw new BaseError('HTTP_UNAVAILABLE', `the local venue at ${shownUrl} cannot be reached: is \`clobbot sim\` running? (venueUrl in ${source.file})`, { cause: error });
      }
      throw error;
    }
    const network = resolveRunNetwork(config, { network: 'sim', venueUrl, chainId: info.chainId });
    const symbols = config.markets.map(runMarketSymbol);
    const { specs, missing } = marketSpecsOf(info, symbols);
    const where = ours ? simFile : shownUrl;
    if (missing.length > 0) {
      const listed = info.markets.map((market) => market.symbol).join(', ') || 'none';
      throw configError(
        source.file,
        missing.map((symbol) => locatedIssue(source, ['markets', symbols.indexOf(symbol)], `${symbol} is not a market of the venue (${where} lists ${listed})`)),
      );
    }
    const mismatches = config.markets.flatMap((entry, index) => (typeof entry === 'string' ? [] : marketMismatches(source, index, entry, specs[index]!, where)));
    if (mismatches.length > 0) throw configError(source.file, mismatches);
    const market = specs[0]!;
    const authNonce = runAuthNonce(config);
    const connection = (accountId: bigint, setup: string): VenueConnection => ({
      network,
      where: inProcess ? 'in-process venue, no network' : `${ours ? 'in-process venue' : 'venue'} ${shownUrl}`,
      blockMs: info.blockMs,
      specs,
      accountId,
      owner,
      authNonce,
      accountCore: info.contracts.accountCore,
      setup,
      transport: context.transport,
      ...(inProcess === undefined ? {} : { createSocket: inProcess.createSocket }),
      stop,
    });

    // The account: opened (empty) when the owner has none yet.
    const openWith = info.tokens[0]?.symbol ?? market.quoteToken.symbol;
    let accountId = !ours && config.account.id !== undefined ? config.account.id : await simFund(context, venueUrl, { owner, token: openWith, amount: 0n });

    const setup = await startSetupTransport(context, { network, wallet, logger });
    try {
      const readiness = { wallet: wallet.address, owner, authNonce, network, runFile: source.file };
      const probe = (id: bigint) => probeTradingWallet({ transport: setup.transport, wallet, network, accountId: id, market: market.address, authNonce, ids: params.ids, clock: context.clock });
      if (!ours) {
        const found = await probe(accountId);
        const notReady = notReadyError(found, { ...readiness, accountId });
        if (notReady === undefined) return connection(accountId, `already set up (delegated, TRADE on account ${accountId})`);
        // A setup grants TRADE; it cannot change another owner's account nor the authNonce epoch.
        if (owner !== wallet.address || found.authNonceMatches === false) throw notReady;
      }
      // Fund and set up the wallet's own account.
      const done = await setUpSimWallet({ context, venueUrl, info, sim: sim!, simFile, network, wallet, transport: setup.transport, ids: params.ids, logger, openWith });
      accountId = done.accountId;
      const after = notReadyError(await probe(accountId), { ...readiness, accountId });
      if (after !== undefined) throw after;
      return connection(accountId, `${done.funded}; delegated and granted TRADE (CONFIRMED in block ${done.blockNumber})`);
    } finally {
      await setup.stop();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
