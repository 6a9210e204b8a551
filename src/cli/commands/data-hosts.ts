/**
 * Where the read-only data commands (`clobbot token`, `quote`, `orders`) send their requests: the
 * network of a run file (`--config`, its hosts and its `venueUrl`), a running local venue
 * (`--venue-url`), or by default the local venue at its default address. Reads need no wallet,
 * no relay and no mainnet opt-in. Also the markets by symbol (address, precisions, fees): the local
 * venue publishes them (`GET /sim/info`); off the sim, the run file's markets given whole.
 */
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { seededRandom } from '../../core/random.ts';
import { configError, loadConfig } from '../../config/load-config.ts';
import { DEFAULT_SIM_URL, isNetworkName, resolveNetwork, type HostName, type ResolvedNetwork } from '../../config/network-config.ts';
import type { RunConfig } from '../../config/run-config.ts';
import { runConfigSchema } from '../../config/run-config.ts';
import type { Address } from '../../protocol/encoding.ts';
import { isClientError } from '../../clients/client-error.ts';
import { createFetchTransport } from '../../clients/http-transport.ts';
import { DEFAULT_RETRY_POLICY } from '../../clients/retry-policy.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { getSimInfo } from '../../runtime/sim-account.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { scrubSecretText } from '../../core/secrets.ts';

/** A market as the data commands show it; precisions, sizes and fees when known. */
export interface DataMarket {
  readonly symbol: string;
  readonly address: Address;
  readonly base: { readonly symbol: string; readonly address: Address; readonly decimals: number };
  readonly quote: { readonly symbol: string; readonly address: Address; readonly decimals: number };
  readonly pricePrecision?: bigint | undefined;
  readonly sizePrecision?: bigint | undefined;
  readonly tickSize?: bigint | undefined;
  readonly minSize?: bigint | undefined;
  readonly maxSize?: bigint | undefined;
  readonly makerFeePps?: bigint | undefined;
  readonly takerFeePps?: bigint | undefined;
}

export interface DataTarget {
  readonly network: ResolvedNetwork;
  /** The local venue's base URL (network sim), else undefined. */
  readonly venueUrl: string | undefined;
  readonly context: ClientContext;
  /** Where the network came from, for messages: `config/x.yaml (network sim)`, `--venue-url …`, `the default local venue`. */
  readonly from: string;
  /** The host's URL, or a usage error naming the host and how to give it. */
  host(name: HostName): string;
  /** The markets by symbol (the local venue's, or the run file's markets given whole). */
  markets(): Promise<readonly DataMarket[]>;
}

export const DATA_TARGET_USAGE = [
  '  --config <file>      the run file: its network, hosts and venueUrl (default: the local venue at ' + DEFAULT_SIM_URL + ')',
  '  --venue-url <url>    a running `clobbot sim` (instead of --config)',
];

/** The data commands' retry: a quick second try after a lost answer or a 5xx, no long waits. */
export const DATA_RETRY = { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, maxRetryAfterMs: 2_000 };

/** `--config` / `--venue-url` -> the network and its clients' context. */
export async function resolveDataTarget(io: CliIo, command: string, values: { readonly config?: string | undefined; readonly 'venue-url'?: string | undefined }): Promise<DataTarget> {
  const usageError = (message: string) => new BaseError('CLI_USAGE', `${command}: ${message}`, { details: { command } });
  if (values.config !== undefined && values['venue-url'] !== undefined) throw usageError('give --config <run file> or --venue-url <url>, not both');
  let run: RunConfig | undefined;
  let network: ResolvedNetwork;
  let venueUrl: string | undefined;
  let from: string;
  if (values.config !== undefined) {
    const loaded = await loadConfig(values.config, runConfigSchema, { env: io.env });
    if (!loaded.ok) throw configError(values.config, loaded.issues);
    run = loaded.value;
    const name = run.network;
    if (!isNetworkName(name)) throw usageError(`unknown network ${JSON.stringify(String(name).slice(0, 40))}`);
    venueUrl = name === 'sim' ? (run.venueUrl ?? DEFAULT_SIM_URL).replace(/\/+$/, '') : undefined;
    network = resolveNetwork(name, { hosts: run.hosts ?? {}, ...(venueUrl === undefined ? {} : { venueUrl }) });
    from = `${values.config} (network ${name}${venueUrl === undefined ? '' : `, ${venueUrl}`})`;
  } else {
    venueUrl = (values['venue-url'] ?? DEFAULT_SIM_URL).replace(/\/+$/, '');
    network = resolveNetwork('sim', { venueUrl });
    from = `the local venue at ${venueUrl}`;
  }
  const context: ClientContext = { transport: createFetchTransport(), clock: liveClock, random: seededRandom(liveClock.now() % 2 ** 31) };
  let markets: Promise<readonly DataMarket[]> | undefined;
  return {
    network,
    venueUrl,
    context,
    from,
    host(name) {
      const url = network.hosts[name];
      if (url === undefined) throw usageError(`network ${network.name} publishes no ${name}: give it under hosts in the run file`);
      return url;
    },
    markets() {
      markets ??= venueUrl !== undefined ? simMarkets(context, venueUrl) : Promise.resolve(runFileMarkets(run));
      return markets;
    },
  };
}

/** A market as the commands show it, from the sim's info or a run file (specs with the same fields). */
function dataMarket(spec: Omit<DataMarket, 'base' | 'quote'> & { readonly baseToken: DataToken; readonly quoteToken: DataToken }): DataMarket {
  const token = ({ symbol, address, decimals }: DataToken): DataToken => ({ symbol, address, decimals });
  return {
    symbol: spec.symbol,
    address: spec.address,
    base: token(spec.baseToken),
    quote: token(spec.quoteToken),
    pricePrecision: spec.pricePrecision,
    sizePrecision: spec.sizePrecision,
    tickSize: spec.tickSize,
    minSize: spec.minSize,
    maxSize: spec.maxSize,
    makerFeePps: spec.makerFeePps,
    takerFeePps: spec.takerFeePps,
  };
}

type DataToken = DataMarket['base'];

async function simMarkets(context: ClientContext, venueUrl: string): Promise<readonly DataMarket[]> {
  const info = await getSimInfo(context, venueUrl);
  return info.markets.map(dataMarket);
}

function runFileMarkets(run: RunConfig | undefined): readonly DataMarket[] {
  const out: DataMarket[] = [];
  for (const entry of run?.markets ?? []) if (typeof entry !== 'string') out.push(dataMarket(entry));
  return out;
}

/**
 * A server that cannot be reached or fails: `error CODE: the <what> server <url> …`, exit 1; a
 * refusal of the request (4xx): exit 2. Anything else is rethrown (main prints it).
 */
export function reportDataError(io: CliIo, error: unknown, what: string, url: string): number {
  if (isClientError(error, 'HTTP_UNAVAILABLE') || isClientError(error, 'HTTP_TIMEOUT')) {
    const answered = error.status === undefined ? 'cannot be reached' : 'failed';
    io.stderr.write(`error ${error.code}: the ${what} server ${url} ${answered}: ${scrubSecretText(error.message)}\n`);
    if (error.status === undefined && /127\.0\.0\.1|localhost/.test(url)) io.stderr.write('is `clobbot sim` running? (or pass --config <run file> / --venue-url <url>)\n');
    return ExitCode.failure;
  }
  if (isClientError(error) && error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 429) {
    io.stderr.write(`error ${error.code}: ${scrubSecretText(error.message)}\n`);
    return ExitCode.usage;
  }
  if (error instanceof BaseError && (error.code as string) === 'USER_DATA_BAD_REQUEST') {
    io.stderr.write(`error ${error.code}: ${scrubSecretText(error.message)}\n`);
    return ExitCode.usage;
  }
  throw error;
}
