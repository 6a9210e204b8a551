/**
 * The run file of `clobbot run`: which network, wallet, account, markets and strategies, the risk
 * limits, engine settings, logging and metrics. Strategy `params` are kept as written here and
 * validated later by each strategy's own schema (with `validateYamlSource` for located errors);
 * strategy modules are not loaded at validation time.
 *
 * Why one file of this size: it is the run file's one schema, section by section, with the
 * cross-field rules that need the whole file (markets against strategies, the network's rules).
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { LOG_LEVELS } from '../core/log-levels.ts';
import { UINT256_MAX, UINT32_MAX, UINT40_MAX, UINT96_MAX } from '../core/units.ts';
import { MAKER_SLOTS, RELAY_PENDING_OUTCOME_LIMIT } from '../protocol/constants.ts';
import type { ConfigPath } from './config-issue.ts';
import { configErrorMap, describeKind } from './config-error-map.ts';
import { virtualSchema } from './virtual-config.ts';
import { configAddress, decimalAmount, durationMs, durationMsOr, ENV_NAME_MESSAGE, envVarName, integerUnits, intInRange, marketSymbol, tokenSymbol } from './fields.ts';
import {
  DEFAULT_NETWORK,
  hostUrlProblem,
  missingHosts,
  missingHostsMessage,
  NETWORK_NAMES,
  requireHosts,
  resolveNetwork,
  TRADING_HOSTS,
  type HostName,
  type NetworkName,
  type ResolvedNetwork,
} from './network-config.ts';

/** A strategy's default `idleTimeout`, ms. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** zod: a URL for `host` (relayWsUrl ws(s), others http(s)), without a trailing slash. */
function hostUrl(host: HostName) {
  return z
    .string()
    .superRefine((url, ctx) => {
      const problem = hostUrlProblem(host, url);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((url) => url.replace(/\/+$/, ''));
}

const hostsSchema = z.strictObject({
  baseUrl: hostUrl('baseUrl').optional(),
  userUrl: hostUrl('userUrl').optional(),
  quoteUrl: hostUrl('quoteUrl').optional(),
  exchangeUrl: hostUrl('exchangeUrl').optional(),
  relayUrl: hostUrl('relayUrl').optional(),
  relayWsUrl: hostUrl('relayWsUrl').optional(),
  rpcUrl: hostUrl('rpcUrl').optional(),
} satisfies Record<HostName, unknown>);

const INLINE_KEY_MESSAGE =
  'never write a private key in the run file: set privateKeyEnv to the NAME of an environment variable that holds it, or privateKeyFile to a file that holds it';
const inlineSecret = z.never({ error: INLINE_KEY_MESSAGE }).optional();
const LOOKS_LIKE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * Where the trading wallet's key comes from: an environment variable, a file, or (sim only) a fresh
 * key made for the run. Never the key itself.
 */
export type WalletSource =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'ephemeral' };

const walletSchema = z
  .strictObject({
    privateKeyEnv: z
      .string()
      .superRefine((name, ctx) => {
        if (LOOKS_LIKE_KEY.test(name)) ctx.addIssue({ code: 'custom', message: `this is a key, not a variable name: ${INLINE_KEY_MESSAGE}` });
        else if (!envVarName.safeParse(name).success) ctx.addIssue({ code: 'custom', message: ENV_NAME_MESSAGE });
      })
      .optional(),
    privateKeyFile: z.string().min(1).optional(),
    ephemeral: z.literal(true, { error: 'expected true (a fresh key for this run, sim only), or leave it out' }).optional(),
    privateKey: inlineSecret,
    key: inlineSecret,
    secretKey: inlineSecret,
    mnemonic: inlineSecret,
    seed: inlineSecret,
  })
  .superRefine((wallet, ctx) => {
    const set = [wallet.privateKeyEnv, wallet.privateKeyFile, wallet.ephemeral].filter((value) => value !== undefined).length;
    if (set !== 1) {
      ctx.addIssue({ code: 'custom', message: 'set exactly one of privateKeyEnv, privateKeyFile or ephemeral: true' });
    }
  })
  .transform((wallet): WalletSource => {
    if (wallet.privateKeyEnv !== undefined) return { kind: 'env', name: wallet.privateKeyEnv };
    if (wallet.privateKeyFile !== undefined) return { kind: 'file', path: wallet.privateKeyFile };
    return { kind: 'ephemeral' };
  });

const runTokenSchema = z.strictObject({
  address: configAddress,
  symbol: tokenSymbol,
  /** Decimals of the raw token amount (0..36, checked with the market's other rules). */
  decimals: z.number().int(),
});

/**
 * A market given whole: the fields of the venue's `MarketSpec`, integers in the venue's units (YAML
 * integers or digit strings, read as bigint). Only the types and wire widths are checked here (a price
 * is a uint32, a size a uint96); the market's rules (powers of ten, positive tick and sizes, fees in
 * range, symbol = BASE_QUOTE) are the venue's `marketSpecIssues`, located by the CLI (`runFileIssues`).
 */
const runMarketSpecSchema = z.strictObject({
  symbol: marketSymbol,
  address: configAddress,
  baseToken: runTokenSchema,
  quoteToken: runTokenSchema,
  /** Price units per 1 quote per base (a power of ten). */
  pricePrecision: integerUnits({ max: UINT32_MAX }),
  /** Size units per 1 base token (a power of ten). */
  sizePrecision: integerUnits({ max: UINT96_MAX }),
  /** Price step, price units. */
  tickSize: integerUnits({ max: UINT32_MAX }),
  /** Smallest and largest order size, size units. */
  minSize: integerUnits(),
  maxSize: integerUnits(),
  /** Fees in pps (parts per 10^7 of the quote amount). */
  makerFeePps: integerUnits(),
  takerFeePps: integerUnits(),
});

/**
 * A market given whole in the run file (its `MarketSpec`).
 *
 * @useDeclaredType
 */
export type RunMarketSpec = z.output<typeof runMarketSpecSchema>;
/** A `markets` entry: a symbol the venue resolves (sim only), or the whole market. */
export type RunMarket = string | RunMarketSpec;

/** The symbol of a `markets` entry. */
export function runMarketSymbol(market: RunMarket): string {
  return typeof market === 'string' ? market : market.symbol;
}

const MARKET_FIELDS = Object.keys(runMarketSpecSchema.shape).join(', ');

/**
 * zod: a `markets` entry. A union would answer "does not match any of the allowed forms" for a map
 * with one wrong field; dispatching on the kind of value keeps each problem at its own field.
 */
const runMarketEntry = z.unknown().transform((value, ctx): RunMarket => {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    ctx.addIssue({ code: 'custom', message: `expected a market symbol such as MON_USDC, or a map giving the whole market (${MARKET_FIELDS}); got ${describeKind(value)}` });
    return z.NEVER;
  }
  const parsed = (typeof value === 'string' ? marketSymbol : runMarketSpecSchema).safeParse(value, { error: configErrorMap });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
  return z.NEVER;
});

const strategySchema = z.strictObject({
  /** Unique within the run; names the strategy in logs, metrics and the journal. */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'expected a name of letters, digits, _ and - (at most 64)'),
  /** A file path (`strategies/market-maker.ts`, resolved against the working directory) or a package name. */
  module: z.string().min(1),
  markets: z.array(marketSymbol).min(1),
  /** Validated by the strategy's own params schema when the run starts. */
  params: z.record(z.string(), z.unknown()).default({}),
  /**
   * A strategy that emits no intent this long after its start fails the run (STRATEGY_IDLE), as does
   * one that emitted none when the run's duration ends first; `off`: quiet is fine. Default 60 s.
   */
  idleTimeout: durationMsOr('off').default(DEFAULT_IDLE_TIMEOUT_MS),
});

const killSwitchSchema = z.strictObject({
  /** Stop trading when this file exists. */
  file: z.string().min(1).optional(),
  /** Stop when the loss from the peak reaches this many quote units. */
  maxDrawdown: decimalAmount({ positive: true }).optional(),
  /** Stop when this fraction (0..1] of recent requests fail. */
  maxErrorRate: z.number().gt(0).max(1).optional(),
});

const riskSchema = z.strictObject({
  /** Largest absolute position per market, in base-token units (human decimal). */
  maxPosition: decimalAmount({ positive: true }),
  /** Largest size of one order, in base-token units. */
  maxOrderSize: decimalAmount({ positive: true }),
  /** Largest quote value of all open orders of a market together. */
  maxNotional: decimalAmount({ positive: true }),
  /** Orders priced further than this from the mid are refused. */
  priceBandBps: intInRange(1, 10_000).default(500),
  maxOrdersPerSecond: z.number().positive().max(10_000).default(20),
  maxOpenOrders: intInRange(1, 100_000).default(MAKER_SLOTS),
  killSwitch: killSwitchSchema.optional(),
});

/** What the engine does with new intents while `maxPendingOutcomes` transactions await their outcome. */
export const QUEUE_POLICIES = ['coalesce', 'queue', 'reject'] as const;
export type QueuePolicy = (typeof QUEUE_POLICIES)[number];

const engineSchema = z.strictObject({
  maxPendingOutcomes: z
    .number()
    .int()
    .min(1)
    .lt(RELAY_PENDING_OUTCOME_LIMIT, {
      error: `expected at most ${RELAY_PENDING_OUTCOME_LIMIT - 1}: the relay closes the connection when ${RELAY_PENDING_OUTCOME_LIMIT} outcomes are pending`,
    })
    .default(48),
  queuePolicy: z.enum(QUEUE_POLICIES).default('coalesce'),
});

const loggingSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info'),
  /** Plain-text lines instead of JSON; default: plain text on a terminal, JSON otherwise. */
  pretty: z.boolean().optional(),
});

const domainVersion = z
  .union([z.string(), z.number().int().nonnegative()], { error: 'expected a version such as "1" or "2"' })
  .transform((value) => String(value))
  .refine((value) => /^[0-9A-Za-z.-]{1,16}$/.test(value), { error: 'expected a version such as "1" or "2"' });

/** The run file's fields, before the rules that span them. */
const runConfigShape = z.strictObject({
  /** mainnet, testnet or sim (default). */
  network: z.enum(NETWORK_NAMES).default(DEFAULT_NETWORK),
  /** mainnet moves real money: it needs this explicit opt-in. */
  allowMainnet: z.boolean().default(false),
  /** sim only: a running `clobbot sim`. Without it, `clobbot run` starts the venue in-process. */
  venueUrl: hostUrl('baseUrl').optional(),
  /** sim only: the venue config used for an in-process venue and its funding (default config/sim.yaml). */
  simConfig: z.string().min(1).optional(),
  /** Per-host overrides of the network's defaults. */
  hosts: hostsSchema.optional(),
  /** EIP-712 `KuruTradingWallet` domain version (default "1"). */
  tradingWalletDomainVersion: domainVersion.optional(),
  wallet: walletSchema,
  account: z
    .strictObject({
      /** The uint40 account id. On sim, found or created from the owner when absent; `clobbot run` needs it elsewhere. */
      id: integerUnits({ max: UINT40_MAX }).optional(),
      /** The account owner (default: the trading wallet). */
      owner: configAddress.optional(),
      /** The signer-authorization epoch the intents are signed under (uint256; absent: 0, an account never revoked). */
      authNonce: integerUnits({ max: UINT256_MAX }).optional(),
      /** Off the sim: the network's account-core contract, whose views give the balances and maker slots (the sim publishes its own). */
      accountCore: configAddress.optional(),
    })
    .prefault({}),
  /** Symbols (sim: the venue publishes the markets) or whole markets (every other network). */
  markets: z.array(runMarketEntry).min(1),
  strategies: z.array(strategySchema).min(1),
  risk: riskSchema,
  engine: engineSchema.prefault({}),
  logging: loggingSchema.prefault({}),
  metrics: z.strictObject({ port: intInRange(1, 65_535) }).optional(),
  /** How long to run: seconds or `90s`, `5m`, `1h`; parsed to milliseconds. Default: until SIGINT. */
  duration: durationMs.optional(),
  /** sim only: the virtual clock's start and the in-process connection's latencies (`clobbot run --virtual`). */
  virtual: virtualSchema.prefault({}),
});

/** The fields of a run file, before the rules that span them are checked. */
export type RunFileFields = z.output<typeof runConfigShape>;

/** The signer-authorization epoch a run signs under: `account.authNonce`, else 0 (an account that never revoked a signer). */
export function runAuthNonce(run: Pick<RunFileFields, 'account'>): bigint {
  return run.account.authNonce ?? 0n;
}

/** A problem found by a rule that spans a run file's fields, at the path it concerns. */
export interface RunFileProblem {
  readonly path: ConfigPath;
  readonly message: string;
}

const MARKET_FIELDS_HINT = `write a map giving the whole market: ${MARKET_FIELDS} (docs/configuration.md, "Markets off the sim")`;

/**
 * What a run file must satisfy on `network` besides its own form: the sim-only keys and wallet, and
 * the hosts the network does not publish. The schema checks the file's own network;
 * `clobbot run --network <n>` checks the one asked for.
 *
 * @example runNetworkProblems(config, 'testnet') // [{ path: ['network'], message: 'network testnet has no default exchangeUrl, …' }]
 */
export function runNetworkProblems(run: RunFileFields, network: NetworkName): RunFileProblem[] {
  if (network === 'sim') return [];
  const problems: RunFileProblem[] = [];
  for (const key of ['venueUrl', 'simConfig'] as const) {
    if (run[key] !== undefined) problems.push({ path: [key], message: `${key} applies to network sim only` });
  }
  if (run.wallet.kind === 'ephemeral') problems.push({ path: ['wallet', 'ephemeral'], message: 'an ephemeral wallet exists on network sim only' });
  const missing = missingHosts(resolveNetwork(network, { hosts: run.hosts ?? {} }), TRADING_HOSTS);
  if (missing.length > 0) problems.push({ path: run.hosts ? ['hosts'] : ['network'], message: missingHostsMessage(network, missing) });
  return problems;
}

/**
 * What `clobbot run` needs on `network` beyond a valid run file (`clobbot validate` checks it too):
 * off the sim, every market given whole (no API of testnet or mainnet publishes a market's address,
 * tick, sizes and fees) and `account.id` (only the local venue looks an account up by its owner).
 * `clobbot account setup` does without either: a wallet may be set up before its account's id is
 * known, and `--market SYMBOL=address` names a market listed by symbol.
 *
 * @example runRequirementProblems(config, 'testnet') // [{ path: ['markets', 0], message: 'on testnet a market is given whole, …' }]
 */
export function runRequirementProblems(run: RunFileFields, network: NetworkName): RunFileProblem[] {
  if (network === 'sim') return [];
  const problems: RunFileProblem[] = [];
  run.markets.forEach((market, index) => {
    if (typeof market === 'string') {
      problems.push({
        path: ['markets', index],
        message: `on ${network} a market is given whole, not by symbol (no API of ${network} publishes a market's address, tick, sizes and fees): ${MARKET_FIELDS_HINT}`,
      });
    }
  });
  if (run.account.id === undefined) {
    problems.push({
      path: ['account', 'id'],
      message: `required on ${network}: the id (uint40) of the account the wallet trades for; only the local venue can look it up from the owner`,
    });
  }
  return problems;
}

/**
 * The run file schema (`clobbot run <file>`). Strict: an unknown key is an error at that key.
 *
 * @example
 * const result = await loadConfig('config/market-maker.yaml', runConfigSchema);
 */
export const runConfigSchema = runConfigShape.superRefine((run, ctx) => {
  if (run.network === 'mainnet' && !run.allowMainnet) {
    ctx.addIssue({ code: 'custom', path: ['network'], message: 'mainnet trades real money: add allowMainnet: true to the run file to opt in' });
  }
  for (const problem of runNetworkProblems(run, run.network)) ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
  const listed = new Map<string, number>();
  const addresses = new Map<string, number>();
  run.markets.forEach((market, index) => {
    const symbol = runMarketSymbol(market);
    const earlier = listed.get(symbol);
    if (earlier !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['markets', index], message: `${symbol} is listed twice (also markets[${earlier}])` });
      return;
    }
    listed.set(symbol, index);
    if (typeof market !== 'string') {
      const same = addresses.get(market.address);
      if (same !== undefined) ctx.addIssue({ code: 'custom', path: ['markets', index, 'address'], message: `markets[${same}] has the same address` });
      else addresses.set(market.address, index);
    }
  });
  const names = new Set<string>();
  run.strategies.forEach((strategy, index) => {
    if (names.has(strategy.name)) {
      ctx.addIssue({ code: 'custom', path: ['strategies', index, 'name'], message: `another strategy is already named ${strategy.name}` });
    }
    names.add(strategy.name);
    strategy.markets.forEach((symbol, marketIndex) => {
      if (!listed.has(symbol)) {
        ctx.addIssue({ code: 'custom', path: ['strategies', index, 'markets', marketIndex], message: `${symbol} is not listed under markets` });
      }
    });
  });
});

export type RunConfig = z.output<typeof runConfigSchema>;
export type StrategyConfig = RunConfig['strategies'][number];
export type RiskConfig = RunConfig['risk'];
export type EngineConfig = RunConfig['engine'];

/**
 * Whether a strategy `module` names a file (relative or absolute path, or a .ts/.js file name) or a package.
 *
 * @example strategyModuleKind('strategies/market-maker.ts') // 'file'
 * @example strategyModuleKind('@acme/clobbot-strategies') // 'package'
 */
export function strategyModuleKind(module: string): 'file' | 'package' {
  return /^(\.{1,2}\/|\/|[A-Za-z]:[\\/])/.test(module) || /\.(ts|mts|cts|js|mjs|cjs)$/.test(module) ? 'file' : 'package';
}

export interface ResolveRunNetworkOptions {
  /** `--network` from the command line, replacing the file's network (mainnet still needs allowMainnet). */
  readonly network?: string;
  /** sim: the URL of the venue actually used (e.g. the in-process one). */
  readonly venueUrl?: string;
  /** sim: the chain id of the venue actually used. */
  readonly chainId?: number;
}

/**
 * The network a validated run file trades on, with its host overrides applied and every trading host
 * present. Throws NETWORK_UNKNOWN, NETWORK_HOST_INVALID, or CONFIG_INVALID (mainnet without
 * `allowMainnet`, or a host the network does not publish and the file does not set).
 *
 * @example resolveRunNetwork(config, { venueUrl: 'http://127.0.0.1:4100' }).hosts.relayWsUrl
 */
export function resolveRunNetwork(config: RunConfig, options: ResolveRunNetworkOptions = {}): ResolvedNetwork {
  const name = options.network ?? config.network;
  if (name === 'mainnet' && !config.allowMainnet) {
    throw new BaseError('CONFIG_INVALID', 'mainnet trades real money: add allowMainnet: true to the run file to opt in', {
      details: { network: name },
    });
  }
  const sim = name === 'sim';
  const network = resolveNetwork(name, {
    hosts: config.hosts ?? {},
    ...(config.tradingWalletDomainVersion !== undefined ? { tradingWalletDomainVersion: config.tradingWalletDomainVersion } : {}),
    ...(sim && (options.venueUrl ?? config.venueUrl) !== undefined ? { venueUrl: options.venueUrl ?? config.venueUrl } : {}),
    ...(sim && options.chainId !== undefined ? { chainId: options.chainId } : {}),
  });
  requireHosts(network, TRADING_HOSTS);
  return network;
}
